import RideSession

/// Whether the car is across the street from the passenger, judged from what the guide knows:
/// a pure function of the estimates and the walking readings fed to it, so the simulator and
/// the live guide judge alike (issue 22, part 5).
///
/// A car across the street is as close as the street is wide: walking along the kerb, the
/// passenger passes it with the distance falling to the street's width and rising again, never
/// to arm's reach. So: over the last `window` seconds of guiding, the passenger walked most of
/// the time, the estimated distance never came under `nearest` (a car on the passenger's own
/// side is reached along the kerb; one across stays a carriageway away), and the distance
/// did not close by `closing` or more (walking towards a car at 1 m/s closes metres a few
/// seconds). Without walking readings (no step detector) it never judges by itself: standing
/// still and not closing is a passenger waiting, not a car across; the driver's key `x` says it.
public struct AcrossTheStreet: Sendable, Equatable {
    public struct Parameters: Sendable, Equatable {
        /// How long the evidence must cover, s.
        public var window = 20.0
        /// Least share of the window spent walking.
        public var walkingShare = 0.6
        /// The estimated distance stays at least this, m (a two-lane street with parking, kerb to
        /// kerb, is 10–15 m; the car at the far kerb is farther than 5 m from the near one). The
        /// point estimate, not a bound: the lower bound of an uncalibrated level is a few metres
        /// at any distance, and would never let the judge speak.
        public var nearest = 5.0
        /// The mean distance of the window's last quarter must be no more than this below its first
        /// quarter's, m.
        public var closing = 1.5
        /// By the satellite fixes (issue 35): across when the fixes put her, at this many σ of
        /// their reported accuracies, more than `halfRoad` metres on the road side of the car's
        /// course line (its kerb is the other way). A two-lane street with parking is 10–15 m
        /// kerb to kerb, so half of it is 5–7.5 m; the car's own kerb side is where she stands
        /// when it is at hers, or double-parked beside it.
        public var satelliteSigmas = 2.5
        public var halfRoad = 5.7
        public init() {}
    }

    public let parameters: Parameters
    /// (time, distance), oldest first, trimmed to the window.
    private var estimates: [(time: Double, distance: Double)] = []
    /// Walking readings, oldest first, trimmed to the window (the last one before it kept).
    private var walking: [(time: Double, walking: Bool)] = []
    /// Guiding began (or resumed after a signal loss) at this time.
    private var since: Double?

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public static func == (a: AcrossTheStreet, b: AcrossTheStreet) -> Bool {
        a.parameters == b.parameters && a.since == b.since && a.estimates.count == b.estimates.count && a.walking.count == b.walking.count
    }

    /// Guiding starts (or starts again): earlier evidence no longer counts.
    public mutating func restart(at time: Double) {
        since = time
        estimates = []
    }

    public mutating func note(time: Double, distance: Double) {
        guard distance.isFinite else { return }
        if since == nil { since = time }
        estimates.append((time, distance))
        estimates.removeAll { $0.time < time - parameters.window }
    }

    public mutating func walking(time: Double, _ isWalking: Bool) {
        walking.append((time, isWalking))
        while walking.count > 1, walking[1].time <= time - parameters.window { walking.removeFirst() }
    }

    /// True when the evidence of the last `window` says the car is across the street.
    public func isAcross(at time: Double) -> Bool {
        let start = time - parameters.window
        guard let since, since <= start, !walking.isEmpty, estimates.count >= 8,
              let first = estimates.first, first.time <= start + 2 else { return false }
        guard estimates.allSatisfy({ $0.distance >= parameters.nearest }) else { return false }
        guard walkingShare(from: start, to: time) >= parameters.walkingShare else { return false }
        let quarter = parameters.window / 4
        let early = estimates.filter { $0.time < start + quarter }.map(\.distance)
        let late = estimates.filter { $0.time >= time - quarter }.map(\.distance)
        guard !early.isEmpty, !late.isEmpty else { return false }
        let closed = early.reduce(0, +) / Double(early.count) - late.reduce(0, +) / Double(late.count)
        return closed < parameters.closing
    }

    /// True when the satellite fixes say the car's kerb is across the street from her
    /// (`KerbSide.judge` at `satelliteSigmas`): the road is between them, so no satellite
    /// direction may lead her towards the car; she stays on the pavement and the driver is told.
    public func isAcross(satellite vector: SatelliteVector, traffic: TrafficSide) -> Bool {
        KerbSide.judge(vector, traffic: traffic, sigmas: parameters.satelliteSigmas, halfRoad: parameters.halfRoad) == .across
    }

    /// The share of `start...end` the readings say the passenger walked (each reading holds
    /// until the next).
    func walkingShare(from start: Double, to end: Double) -> Double {
        guard end > start else { return 0 }
        var walked = 0.0
        for (index, reading) in walking.enumerated() where reading.walking {
            let from = max(start, reading.time)
            let until = index + 1 < walking.count ? min(end, walking[index + 1].time) : end
            if until > from { walked += until - from }
        }
        return walked / (end - start)
    }
}
