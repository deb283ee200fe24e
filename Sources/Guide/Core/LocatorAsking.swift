import BeaconCore
import RideSession

/// When the guide asks the car to sound its locator by itself: near the car, where a sound is
/// heard well and the RSSI trend says little (a few dB of slope under 3–4 dB of multipath),
/// after a while without a confident direction. One request covers the car's 30 s of ticks;
/// the passenger's own `s` asks at any time (the server limits how often).
public struct LocatorAsking: Sendable, Equatable {
    public struct Timing: Sendable, Equatable {
        /// Ask only when the estimate puts the car this close, m: farther, ticks are masked by
        /// street noise and the walk is long enough for the trend to work.
        public var nearRange = 15.0
        /// Ask after this long without a confident direction, s: a second lets a trend about
        /// to speak do so. Near the car the ticks are what a walker finds it by (3 s → 1 s took
        /// the median time to touch from 10 m from 1.77× to 1.65×, wrong cues 0.03 → 0.05).
        public var unsureAfter = 1.0
        /// Ask again no sooner than this after a request, s (the car ticks for 30 s).
        public var repeatAfter = 30.0
        public init() {}
    }

    public let timing: Timing
    /// Whether the guide may ask by itself (`GuideAids.includesLocator`).
    public let automatic: Bool
    /// Guide time of the last confident direction (or of the start of guiding).
    private var sureAt: Double?
    /// Guide time of the last request, whoever made it.
    public private(set) var askedAt: Double?
    /// A request is on its way to the ride service.
    public private(set) var pending = false
    /// Guide time until which the car is known to tick.
    public private(set) var tickingUntil: Double?
    /// The ride service refused the last request (not the ride's passenger, not arrived).
    public private(set) var refused = false

    public init(automatic: Bool, timing: Timing = Timing()) {
        self.automatic = automatic
        self.timing = timing
    }

    public func isTicking(at time: Double) -> Bool { tickingUntil.map { time < $0 } ?? false }

    /// Notes an estimate while guiding; true when the guide should ask now.
    public mutating func shouldAsk(at time: Double, distance: Double, trend: Trend) -> Bool {
        if trend == .closer || trend == .farther || sureAt == nil { sureAt = time }
        guard automatic, !pending, !isTicking(at: time), distance.isFinite, distance <= timing.nearRange,
              let sureAt, time - sureAt >= timing.unsureAfter else { return false }
        if let askedAt, time - askedAt < timing.repeatAfter { return false }
        return true
    }

    /// When a turn on the spot would start (no direction for a while, at any distance): true
    /// when the car may be asked to tick instead. Farther than `nearRange` the ticks are heard
    /// less often, but a turn costs 12–24 s and the ticks point the way when heard; the turn is
    /// kept for when the car will not sound (refused) or has just sounded.
    public func mayAskInsteadOfTurning(at time: Double) -> Bool {
        guard automatic, !pending, !isTicking(at: time), !refused else { return false }
        if let askedAt, time - askedAt < timing.repeatAfter { return false }
        return true
    }

    /// A request was sent (by the guide or the passenger's key).
    public mutating func asked(at time: Double) {
        askedAt = time
        pending = true
    }

    /// The ride service answered.
    public mutating func answered(at time: Double, _ answer: LocatorAnswer) {
        pending = false
        if case .refused = answer { refused = true } else { refused = false }
        switch answer {
        case .ticking(let seconds): tickingUntil = time + seconds
        // Asked within the last 10 s, so the car still ticks for at least 20 s.
        case .tooSoon: tickingUntil = max(tickingUntil ?? time, time + 20)
        case .refused: break
        }
    }

    /// Signal lost, or guiding restarted: the next direction is unknown again.
    public mutating func reset() { sureAt = nil }
}
