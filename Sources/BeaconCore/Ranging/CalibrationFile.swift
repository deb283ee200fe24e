import Foundation

/// A ranging calibration: the path-loss model plus what the calibration run learnt.
/// JSON form (`ridebeacon calibrate` writes it, `range --calibration` reads it):
/// `{"tx_power_dbm": -61.2, "exponent": 2.1, "residual_db": 3.4, "samples": 5400,
///   "touch_rssi_dbm": -30.5, "source": "..."}` — only the first two are required.
public struct Calibration: Sendable, Equatable {
    /// The fitted path-loss model (A and n).
    public var model: PathLossModel
    /// Touch threshold, dBm; nil means "derive from the pair's line" (`TouchLevelRule.default`).
    public var touchRSSI: Double?
    /// Fit residual RMS, dB.
    public var residual: Double?
    /// Samples the fit used.
    public var samples: Int?
    /// Free text: where the calibration came from.
    public var source: String?
    /// Judge the touch by the step too (`TouchDetector.Parameters.withStep`, issue 34): off in
    /// the product (BENCHMARKS.md, "Touch from the step"); the street simulator measures it.
    /// Not part of a calibration file.
    public var touchStep = false

    /// A calibration; only the model is required:
    ///
    /// ```swift
    /// let calibration = Calibration(model: PathLossModel(txPower: -61.2, exponent: 2.1))
    /// ```
    public init(model: PathLossModel, touchRSSI: Double? = nil, residual: Double? = nil,
                samples: Int? = nil, source: String? = nil) {
        self.model = model
        self.touchRSSI = touchRSSI
        self.residual = residual
        self.samples = samples
        self.source = source
    }

    /// The touch threshold the ranger will use: a measured one, else the pair's 1 m level plus
    /// the contact step `TouchLevelRule.default` predicts from its line.
    public var effectiveTouchRSSI: Double { touchRSSI ?? TouchLevelRule.default.threshold(for: model) }
}

/// Why a calibration file was rejected, naming the field.
public struct CalibrationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the file.
    public enum Kind: Equatable, Sendable {
        /// The text is not JSON.
        case notJSON
        /// The JSON is not an object.
        case notAnObject
        /// A required field is absent.
        case missingField
        /// The field holds another JSON type than `expected`.
        case wrongType(expected: String)
        /// The field's number is outside what a calibration can be.
        case outOfRange(value: Double, range: ClosedRange<Double>)
    }

    /// The JSON key at fault (empty for whole-document problems).
    public var field: String
    /// What is wrong with it.
    public var kind: Kind

    /// An error about `field`.
    public init(field: String, _ kind: Kind) {
        self.field = field
        self.kind = kind
    }

    /// The field and the problem in words ("exponent: 9.0 is outside 1.0...6.0").
    public var description: String {
        switch kind {
        case .notJSON: "not valid JSON"
        case .notAnObject: "expected a JSON object with tx_power_dbm and exponent"
        case .missingField: "missing field \(field)"
        case .wrongType(let expected): "\(field) must be \(expected)"
        case .outOfRange(let v, let r):
            "\(field) \(FixedDecimal.format(v, places: 3)) is outside \(FixedDecimal.format(r.lowerBound, places: 1))…\(FixedDecimal.format(r.upperBound, places: 1))"
        }
    }
}

extension Calibration {
    static let txPowerKey = "tx_power_dbm", exponentKey = "exponent", residualKey = "residual_db"
    static let samplesKey = "samples", touchKey = "touch_rssi_dbm", sourceKey = "source"
    /// A touch threshold beyond these is not an RSSI any radio reports.
    static let touchRange: ClosedRange<Double> = -127...20
    static let residualRange: ClosedRange<Double> = 0...100

    /// Parses calibration JSON. Unknown keys are ignored; never traps, whatever the bytes.
    public static func parse(json bytes: [UInt8]) throws(CalibrationError) -> Calibration {
        let object: [String: JSONScalar]
        do {
            object = try JSONDecoder().decode([String: JSONScalar].self, from: Data(bytes))
        } catch DecodingError.typeMismatch {
            throw CalibrationError(field: "", .notAnObject)
        } catch {
            throw CalibrationError(field: "", .notJSON)
        }
        func number(_ key: String, in range: ClosedRange<Double>) throws(CalibrationError) -> Double? {
            guard let value = object[key], value != .null else { return nil }
            guard case .number(let v) = value else { throw CalibrationError(field: key, .wrongType(expected: "a number")) }
            guard range.contains(v) else { throw CalibrationError(field: key, .outOfRange(value: v, range: range)) }
            return v
        }
        guard let a = try number(txPowerKey, in: PathLossModel.txPowerRange) else {
            throw CalibrationError(field: txPowerKey, .missingField)
        }
        guard let n = try number(exponentKey, in: PathLossModel.exponentRange) else {
            throw CalibrationError(field: exponentKey, .missingField)
        }
        var calibration = Calibration(model: PathLossModel(txPower: a, exponent: n))
        calibration.touchRSSI = try number(touchKey, in: touchRange)
        calibration.residual = try number(residualKey, in: residualRange)
        if let s = try number(samplesKey, in: 0...Double(Int32.max)) {
            guard s == s.rounded() else { throw CalibrationError(field: samplesKey, .wrongType(expected: "a whole number")) }
            calibration.samples = Int(s)
        }
        if let value = object[sourceKey], value != .null {
            guard case .string(let s) = value else { throw CalibrationError(field: sourceKey, .wrongType(expected: "a string")) }
            calibration.source = s
        }
        return calibration
    }

    /// Parses a calibration file's text; a bad file throws an error naming the field:
    ///
    /// ```swift
    /// let calibration = try Calibration.parse(json: #"{"tx_power_dbm": -61.2, "exponent": 2.1}"#)
    /// ```
    public static func parse(json text: String) throws(CalibrationError) -> Calibration {
        try parse(json: Array(text.utf8))
    }

    /// Deterministic JSON, keys in a fixed order, one per line.
    public var json: String {
        var fields = [
            (Self.txPowerKey, FixedDecimal.format(model.txPower, places: 3)),
            (Self.exponentKey, FixedDecimal.format(model.exponent, places: 4)),
        ]
        if let residual { fields.append((Self.residualKey, FixedDecimal.format(residual, places: 3))) }
        if let samples { fields.append((Self.samplesKey, String(samples))) }
        if let touchRSSI { fields.append((Self.touchKey, FixedDecimal.format(touchRSSI, places: 3))) }
        if let source { fields.append((Self.sourceKey, Self.quoted(source))) }
        return "{\n" + fields.map { "  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n}\n"
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// A JSON value as far as calibration cares: scalars by type, containers only by kind (not
/// descended into, so hostile nesting costs nothing here).
enum JSONScalar: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), container

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let d = try? c.decode(Double.self) { self = .number(d); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        self = .container
    }
}
