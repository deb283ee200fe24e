/// One row of an RSSI trace.
public struct TraceSample: Sendable, Equatable {
    /// Seconds (any origin), non-decreasing through a trace.
    public var time: Double
    /// Received signal strength, dBm (negative).
    public var rssi: Double
    /// Ground truth distance in metres, when the trace was recorded at known positions.
    public var trueDistance: Double?
    /// The advertiser's calibrated power at 1 m (iBeacon "measured power"), dBm.
    public var txPower: Double?

    /// A sample at `time` seconds of `rssi` dBm, optionally with the truth and the advertised power.
    public init(time: Double, rssi: Double, trueDistance: Double? = nil, txPower: Double? = nil) {
        self.time = time
        self.rssi = rssi
        self.trueDistance = trueDistance
        self.txPower = txPower
    }
}

/// A parsed trace file: CSV with a header; `t_s` and `rssi_dbm` required, `true_distance_m` and
/// `tx_power_dbm` optional, other columns ignored, any order.
public struct Trace: Sendable, Equatable {
    /// The rows, in file order.
    public var samples: [TraceSample]
    /// 1-based line number of each sample in the source text (for messages about a row).
    public var lines: [Int]
    /// Whether the file has the `true_distance_m` column.
    public var hasTrueDistance: Bool
    /// Whether the file has the `tx_power_dbm` column.
    public var hasTxPower: Bool

    /// A trace as the parser builds it.
    public init(samples: [TraceSample], lines: [Int], hasTrueDistance: Bool, hasTxPower: Bool) {
        self.samples = samples
        self.lines = lines
        self.hasTrueDistance = hasTrueDistance
        self.hasTxPower = hasTxPower
    }
}

/// Why a trace could not be read: a value naming the line and the field.
public struct TraceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong on the line.
    public enum Kind: Equatable, Sendable {
        /// The file has no text.
        case empty
        /// A header and no rows.
        case noSamples
        /// A required column is not in the header.
        case missingColumn(String)
        /// A column is named twice.
        case duplicateColumn(String)
        /// A row has more or fewer fields than the header.
        case wrongColumnCount(expected: Int, found: Int)
        /// A field that must be a number is not.
        case notANumber(field: String, text: String)
        /// A number that is infinite or NaN.
        case notFinite(field: String, text: String)
        /// An RSSI of 0 dBm or more (no receiver reports one).
        case rssiNotNegative(text: String)
        /// A row's time is before the row above.
        case timeWentBackwards(previous: Double, current: Double)
        /// A true distance below zero.
        case negativeDistance(text: String)
        /// A measured power outside what a transmitter can advertise.
        case txPowerOutOfRange(text: String)
    }

    /// 1-based line of the source text.
    public var line: Int
    /// What is wrong there.
    public var kind: Kind

    /// An error on `line`.
    public init(line: Int, _ kind: Kind) {
        self.line = line
        self.kind = kind
    }

    /// The field (column) involved, if any.
    public var field: String? {
        switch kind {
        case .missingColumn(let f), .duplicateColumn(let f), .notANumber(let f, _), .notFinite(let f, _): f
        case .rssiNotNegative: TraceParser.rssiColumn
        case .timeWentBackwards: TraceParser.timeColumn
        case .negativeDistance: TraceParser.distanceColumn
        case .txPowerOutOfRange: TraceParser.txPowerColumn
        case .empty, .noSamples, .wrongColumnCount: nil
        }
    }

    /// "line 12: rssi_dbm is not a number" and the like.
    public var description: String {
        let what: String
        switch kind {
        case .empty: what = "empty file: expected a CSV header naming t_s and rssi_dbm"
        case .noSamples: what = "no samples after the header"
        case .missingColumn(let c): what = "missing column \(c) in the header"
        case .duplicateColumn(let c): what = "column \(c) appears twice in the header"
        case .wrongColumnCount(let e, let f): what = "expected \(e) fields like the header, found \(f)"
        case .notANumber(let f, let t): what = t.isEmpty ? "\(f) is empty" : "\(f) \(Self.quote(t)) is not a number"
        case .notFinite(let f, let t): what = "\(f) \(Self.quote(t)) is not a finite number"
        case .rssiNotNegative(let t): what = "rssi_dbm \(Self.quote(t)) must be negative (dBm)"
        case .timeWentBackwards(let p, let c):
            what = "t_s \(FixedDecimal.format(c)) is earlier than the previous row's \(FixedDecimal.format(p))"
        case .negativeDistance(let t): what = "true_distance_m \(Self.quote(t)) must not be negative"
        case .txPowerOutOfRange(let t):
            let r = PathLossModel.txPowerRange
            what = "tx_power_dbm \(Self.quote(t)) is outside \(Int(r.lowerBound))…\(Int(r.upperBound)) dBm"
        }
        return "line \(line): \(what)"
    }

    /// Quotes text from the file for a one-line message: control characters escaped, long text cut.
    static func quote(_ text: String) -> String {
        var out = "\""
        for (i, scalar) in text.unicodeScalars.enumerated() {
            if i == 24 { out += "…"; break }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
