import BeaconCore
import Foundation

/// The spoken distance bands with hysteresis, so a passenger standing near an edge hears one
/// band, not an alternation. Estimated distance errors are multiplicative (dB), so the margin
/// is a ratio: a band is left only once the estimate is `margin` past its edge.
///
/// With bounds (`update(distance:low:high:)`, issue 16) a band is a claim the guide must be able
/// to stand behind, read strictly (issue 21, item 8): "About N" only while every distance the
/// level allows is within 2× of N, "More than N" only while the lower bound is at least N,
/// "Very close" only while the upper bound is within its limit (2.4 m); when no number is
/// supported, a bound, and when no bound either, nothing. `Band.interval` is what each claim
/// says, for the guide, for `ridebeacon range`'s `claim_min_m,claim_max_m` and for whoever scores
/// them. A claim is kept only while the bounds still support it (no slack: a claim the level no
/// longer supports is dropped at once); the hysteresis is on the way *in*: a more telling claim
/// replaces a supported one only once it holds with the margin to spare.
///
/// `claim(_:model:uncertainty:)` is the one path from a ranger's estimate to a claim: the guide
/// speaks from it and `ridebeacon range` prints it, sample for sample (issue 23).
public struct DistanceBands: Sendable {
    public enum Band: Equatable, Sendable, Comparable {
        /// "Very close, reach out."
        case veryClose
        /// "About N meters."
        case about(Int)
        /// "More than N meters."
        case moreThan(Int)

        /// Order by the distance meant: "More than N" lies past "About N" (N·1.4: more than
        /// 10 is nearer than about 15, more than 20 farther than about 20).
        var rank: Int {
            switch self {
            case .veryClose: 0
            case .about(let n): 10 * n
            case .moreThan(let n): 14 * n
            }
        }
        public static func < (a: Band, b: Band) -> Bool { a.rank < b.rank }

        /// The distances, metres, the claim says the truth is within: "Very close" 0…2.4 m
        /// (`veryCloseLimit`), "About N" N/2…2N, "More than N" N…∞. A claim is true when the
        /// truth is inside, ends included.
        public var interval: (min: Double, max: Double) {
            switch self {
            case .veryClose: (0, DistanceBands.veryCloseLimit)
            case .about(let n): (Double(n) / 2, 2 * Double(n))
            case .moreThan(let n): (Double(n), .infinity)
            }
        }

        /// Whether the claim holds at `truth` metres (the strict reading).
        public func isTrue(atDistance truth: Double) -> Bool {
            let (low, high) = interval
            return truth >= low && truth <= high
        }
    }

    /// Upper edges, metres, and the band below each; the last band has no upper edge.
    static let edges: [(upper: Double, band: Band)] = [
        (1.2, .veryClose), (4.5, .about(3)), (8, .about(6)), (12.5, .about(10)), (17.5, .about(15)), (25, .about(20)),
    ]
    static let beyond = Band.moreThan(20)
    /// 20 %: about 1.6 dB at n = 2, four times the filtered level's jitter at rest.
    public static let margin = 0.2

    /// "More than N meters": the bounds the guide says when no number is supported (2: the
    /// closest a bound can be without "Very close" saying more).
    static let lowerBounds = [2, 3, 5, 10, 15, 20]
    /// "Very close" is said only while the upper bound is within this, m: twice the reach.
    public static let veryCloseLimit = 2.4

    public private(set) var band: Band?
    /// The distances the last level allowed, m (NaN before bounds were given).
    public private(set) var low = Double.nan
    public private(set) var high = Double.nan
    /// The raw samples' recent spread (what the signal shows of a body or a bag), fed by `claim`.
    public private(set) var spread = LevelSpread()
    /// Samples fed to `claim` since the start or the last `reset`.
    public private(set) var samples = 0
    /// No claim before this many samples: the filter's first level is a median of few (the
    /// guide's `samplesBeforeSpeaking`).
    public static let samplesBeforeClaiming = 10

    public init() {}

    /// Whether `claim` holds for every distance in the last bounds, each tightened by `margin`
    /// (1: exactly; 1.2: with 20 % to spare on each side).
    public func supports(_ claim: Band, margin: Double = 1) -> Bool {
        guard !low.isNaN, !high.isNaN else { return false }
        let (min, max) = claim.interval
        return low >= min * margin && high * margin <= max
    }

    /// One sample through the claim: the ranger's `estimate` (its raw sample feeds the spread),
    /// read on `model`'s line within `uncertainty`. Returns the claim the guide stands behind at
    /// this sample (nil: nothing can be said truthfully yet). The guide speaks from this and
    /// `ridebeacon range` prints it: one source for both.
    public mutating func claim(_ estimate: RangeEstimate, model: PathLossModel,
                               uncertainty: DistanceUncertainty) -> Band? {
        if let rssi = estimate.rssi, rssi.isFinite {
            spread.add(time: estimate.time, rssi: rssi)
            samples += 1
        }
        guard samples >= Self.samplesBeforeClaiming, estimate.filteredRSSI.isFinite else { return band }
        let bounds = uncertainty.bounds(level: estimate.filteredRSSI, model: model, spread: spread.value)
        return update(distance: model.distance(forRSSI: estimate.filteredRSSI), low: bounds.low, high: bounds.high)
    }

    /// The most telling claim the bounds support: "Very close", else the number whose band holds
    /// `distance` (or the supported number nearest it), else the largest lower bound, else nil.
    func best(distance: Double) -> Band? {
        if supports(.veryClose) { return .veryClose }
        let numbers = Self.edges.compactMap { edge -> Band? in
            guard case .about = edge.band, supports(edge.band) else { return nil }
            return edge.band
        }
        if !numbers.isEmpty {
            let plain = Self.plain(distance)
            if numbers.contains(plain) { return plain }
            return numbers.min { a, b in
                guard case .about(let x) = a, case .about(let y) = b else { return false }
                return abs(log(Double(x) / distance)) < abs(log(Double(y) / distance))
            }
        }
        return Self.lowerBounds.last { Double($0) <= low }.map { .moreThan($0) }
    }

    /// The claim for a level whose point estimate is `distance` and which allows `low`…`high`:
    /// the current one while the bounds support it, unless a clearly more telling one is
    /// supported (with `margin` to spare); otherwise the best supported (nil: nothing can be
    /// said truthfully).
    public mutating func update(distance: Double, low: Double, high: Double) -> Band? {
        guard distance.isFinite, !low.isNaN, !high.isNaN else { return band }
        self.low = low
        self.high = high
        let best = best(distance: distance)
        guard let current = band, supports(current) else {
            band = best
            return band
        }
        guard let best, best != current else { return band }
        switch (current, best) {
        case (_, .veryClose), (.moreThan, .about):
            if supports(best, margin: 1 + Self.margin) { band = best }
        case (.about, .about):
            // Between numbers, the point estimate's hysteresis (`update(distance:)`).
            let index = Self.edges.firstIndex { $0.band == current } ?? Self.edges.count
            let lower = index == 0 ? 0 : Self.edges[index - 1].upper
            let upper = index < Self.edges.count ? Self.edges[index].upper : Double.infinity
            if distance < lower * (1 - Self.margin) || distance > upper * (1 + Self.margin) { band = best }
        case (.moreThan(let a), .moreThan):
            // A larger bound once it holds with the margin to spare.
            if let n = Self.lowerBounds.last(where: { Double($0) * (1 + Self.margin) <= low }), n > a { band = .moreThan(n) }
        default:
            break
        }
        return band
    }

    static func plain(_ distance: Double) -> Band {
        edges.first { distance < $0.upper }?.band ?? beyond
    }

    /// The band for `distance`, sticking to the current one until the estimate is clearly out.
    public mutating func update(distance: Double) -> Band? {
        guard distance.isFinite else { return band }
        let candidate = Self.plain(distance)
        guard let current = band, candidate != current else {
            band = candidate
            return band
        }
        let index = Self.edges.firstIndex { $0.band == current } ?? Self.edges.count
        let lower = index == 0 ? 0 : Self.edges[index - 1].upper
        let upper = index < Self.edges.count ? Self.edges[index].upper : Double.infinity
        if distance < lower * (1 - Self.margin) || distance > upper * (1 + Self.margin) {
            band = Self.plain(distance)
        }
        return band
    }

    public mutating func reset() {
        band = nil
        low = .nan
        high = .nan
        spread.reset()
        samples = 0
    }
}

extension DistanceBands {
    /// A recorded trace through a fresh ranger and the guide's claim, sample by sample: what
    /// `ridebeacon range` prints (`claim_min_m,claim_max_m` are each claim's `interval`) and what
    /// a guide given the same samples and calibration stands behind (`GuideCore.band` makes the
    /// same `claim` call per sighting). `uncertainty` defaults to the calibration's
    /// (`DistanceUncertainty(calibration:)`); `range` without `--calibration` passes `.uncalibrated`.
    public static func replay(_ samples: [(time: Double, rssi: Double)], calibration: Calibration,
                              uncertainty: DistanceUncertainty? = nil) -> [(estimate: RangeEstimate, claim: Band?)] {
        var ranger = Ranger(calibration: calibration)
        var bands = DistanceBands()
        let uncertainty = uncertainty ?? DistanceUncertainty(calibration: calibration)
        var out: [(estimate: RangeEstimate, claim: Band?)] = []
        out.reserveCapacity(samples.count)
        for sample in samples {
            let estimate = ranger.update(time: sample.time, rssi: sample.rssi)
            out.append((estimate, bands.claim(estimate, model: calibration.model, uncertainty: uncertainty)))
        }
        return out
    }
}
