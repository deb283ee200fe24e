import Foundation

/// The real-data fits the street draws from, decoded once from their committed copies
/// (`scripts/embed_fits.py`).
public enum CommittedFits {
    /// Each receiving phone's report process in the shared sets (`scripts/fit_report_intervals.py`).
    public static let reportIntervals: ReportIntervalFit = decode(reportIntervalsJSON)
    /// Each herald phone pair's levels from contact to 3.4 m (`scripts/fit_touch_pairs.py`).
    public static let touchPairs: TouchPairFit = decode(touchPairsJSON)

    static func decode<T: Decodable>(_ json: String) -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(json.utf8)) } catch {
            fatalError("a committed fit does not decode: \(error)")
        }
    }
}

/// Inter-report intervals of every receiving phone in the shared sets, as quantiles.
public struct ReportIntervalFit: Decodable, Sendable {
    public struct Receiver: Decodable, Sendable {
        public var set: String
        public var trace: String
        public var reportsPerSecond: Double
        /// 101 quantiles (0th…100th percentile), s.
        public var quantiles: [Double]
        /// How the set timed its reports: `recorded`, or spread evenly inside a logged second
        /// (herald) or over 100 s (two pcng traces, where only the rate is real).
        public var times: String?
        enum CodingKeys: String, CodingKey {
            case set, trace, reportsPerSecond = "reports_per_s", quantiles = "quantiles_s", times
        }
    }
    public var receivers: [Receiver]
}

/// One phone pair's mean level and spread at each measured distance, contact included.
public struct TouchPairFit: Decodable, Sendable {
    public struct Level: Decodable, Sendable, Equatable {
        public var distance: Double
        public var mean: Double
        public var sd: Double
        enum CodingKeys: String, CodingKey { case distance = "distance_m", mean = "mean_dbm", sd = "sd_db" }
    }
    public struct Pair: Decodable, Sendable, Equatable {
        public var trace: String
        public var levelAt1m: Double
        public var contactStep: Double
        public var levels: [Level]
        enum CodingKeys: String, CodingKey {
            case trace, levelAt1m = "level_at_1m_dbm", contactStep = "contact_step_db", levels
        }
    }
    public var pairs: [Pair]
}

/// A scanning phone's reports as the real sets show them: the intervals between reports drawn
/// from one real receiver's distribution (independently; the real bursts and pauses are not
/// kept in order, a simplification docs/SIMULATOR.md states).
public struct ReportProcess: Sendable {
    public let receiver: ReportIntervalFit.Receiver

    public init(receiver: ReportIntervalFit.Receiver) { self.receiver = receiver }

    /// The receivers a walk may draw: all but those whose intervals were made up from a rate
    /// (`spread_in_100s`) and the one that heard a phone that cannot advertise (under 0.1/s).
    public static let drawable: [ReportIntervalFit.Receiver] = CommittedFits.reportIntervals.receivers.filter {
        $0.times != "spread_in_100s" && $0.reportsPerSecond >= 0.1
    }

    /// One receiver drawn from `receivers`: a set first (each set equally likely, so the 95
    /// fixed philotuxo receivers do not outvote the phone sets), then a receiver in it.
    public static func draw(_ rng: inout SeededRandom, from receivers: [ReportIntervalFit.Receiver] = drawable) -> ReportProcess {
        let sets = Array(Set(receivers.map(\.set))).sorted()
        let set = sets[Int(rng.unit() * Double(sets.count)) % sets.count]
        let members = receivers.filter { $0.set == set }
        return ReportProcess(receiver: members[Int(rng.unit() * Double(members.count)) % members.count])
    }

    /// The advertising interval the real receivers' transmitters are taken to have used, s
    /// (assumed: herald's and the beacons' 10 Hz; docs/SIMULATOR.md).
    public static let recordedAdvertisingInterval = 0.1

    /// The next interval, s (inverse-CDF sampling between the quantiles), for a transmitter
    /// advertising every `advertisingInterval` s: the receiver's real intervals scaled by
    /// (advertisingInterval / recordedAdvertisingInterval)^`scaling` (1: it hears a fixed share
    /// of the advertising events, 0: its rate does not change; `StreetParameters.reportScaling`),
    /// never under a fifth of the advertising interval.
    public func nextInterval(_ rng: inout SeededRandom, advertisingInterval: Double = recordedAdvertisingInterval,
                             scaling: Double = 1) -> Double {
        let q = receiver.quantiles
        let position = rng.unit() * Double(q.count - 1)
        let i = min(Int(position), q.count - 2)
        let fraction = position - Double(i)
        let factor = pow(advertisingInterval / Self.recordedAdvertisingInterval, scaling)
        return max(0.2 * advertisingInterval, (q[i] + (q[i + 1] - q[i]) * fraction) * factor)
    }
}

/// The last metre between two real phones: a herald pair's mean level and spread at each
/// measured distance, log-distance interpolated, contact at the smallest distance.
public struct NearField: Sendable, Equatable {
    public let pair: TouchPairFit.Pair

    public init(pair: TouchPairFit.Pair) { self.pair = pair }

    public static func draw(_ rng: inout SeededRandom, fit: TouchPairFit = CommittedFits.touchPairs) -> NearField {
        NearField(pair: fit.pairs[Int(rng.unit() * Double(fit.pairs.count)) % fit.pairs.count])
    }

    /// The herald traces whose transmitter was an Android phone advertising at
    /// `ADVERTISE_TX_POWER_LOW` (−15/−16 dBm, herald's README): a trace `testNN-…-A` is phone A
    /// hearing phone B (../shared/data/herald/metadata.csv), and phones.csv says which are
    /// Android. 15 of the 26.
    public static let lowPowerTransmitterTraces: Set<String> = [
        "test04-20210103-1026-A.csv.gz", "test04-20210103-1026-B.csv.gz", "test05-20210104-1422-A.csv.gz",
        "test05-20210104-1422-B.csv.gz", "test06-20210105-1754-A.csv.gz", "test06-20210105-1754-B.csv.gz",
        "test07-20210106-0815-A.csv.gz", "test07-20210106-0815-B.csv.gz", "test08-20210106-1501-A.csv.gz",
        "test08-20210106-1501-B.csv.gz", "test09-20210106-2251-A.csv.gz", "test09-20210106-2251-B.csv.gz",
        "test10-20210107-1123-A.csv.gz", "test10-20210107-1123-B.csv.gz", "test11-20210107-2245-A.csv.gz",
    ]

    /// Whether this pair's transmitter advertised at low power.
    public var lowPowerTransmitter: Bool { Self.lowPowerTransmitterTraces.contains(pair.trace) }

    /// The pair as the product would send: a low-power transmitter raised by `offset` dB (the
    /// product asks its controller for the highest power, `BeaconAdvertisement.ride`), every
    /// level and the 1 m level alike; the others as recorded.
    public func atProductPower(lowPowerOffset offset: Double) -> NearField {
        guard lowPowerTransmitter else { return self }
        var raised = pair
        raised.levelAt1m += offset
        raised.levels = raised.levels.map { var level = $0; level.mean += offset; return level }
        return NearField(pair: raised)
    }

    /// How close two phones are when they touch, m: the walker's hand (`Walker.Parameters.contact`)
    /// and the driver's stop there. Within `touching + tolerance` the pair reads its contact level.
    public static let touching = 0.02
    /// Positions are sums of steps: a hand that stops at `touching` lands a few 1e-17 m either
    /// side of it; a millimetre is far below anything the pairs resolve.
    public static let tolerance = 0.001

    /// Mean level and spread at `distance` (≤ the pair's farthest reading): the contact level
    /// up to `touching` (plus `tolerance`), log-distance interpolation beyond it.
    public func level(atDistance distance: Double) -> (mean: Double, sd: Double) {
        let levels = pair.levels.sorted { $0.distance < $1.distance }
        func x(_ d: Double) -> Double { log10(max(d, Self.touching)) }
        guard let first = levels.first else { return (pair.levelAt1m, 3) }
        if distance <= max(first.distance, Self.touching) + Self.tolerance { return (first.mean, first.sd) }
        for (a, b) in zip(levels, levels.dropFirst()) where distance <= b.distance {
            let f = (x(distance) - x(a.distance)) / max(x(b.distance) - x(a.distance), 1e-9)
            return (a.mean + (b.mean - a.mean) * f, a.sd + (b.sd - a.sd) * f)
        }
        return (levels.last!.mean, levels.last!.sd)
    }
}
