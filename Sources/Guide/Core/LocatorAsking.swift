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
        public var repeatAfter = Double(LocatorRule.soundSeconds)
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
    /// The ride service refused the last request (not the ride's passenger, not arrived), or
    /// the driver could not make a sound (said so, or did not answer in time).
    public private(set) var refused = false
    /// Guide time the ride service took the request: the driver's answer is awaited from then
    /// until `answerWait` later (issue 22: a sound is promised only once the driver made it).
    public private(set) var awaitingSince: Double?
    /// Requests in a row that brought no sound (refused, answered `none`, or not answered in
    /// time) since the driver last made one: the guide asks by itself only while there are none
    /// (the escalation ladder, `Escalation`, asks his phone once after the first).
    public private(set) var failures = 0
    /// The sound the driver last said was made.
    public private(set) var sound: LocatorSoundName?
    /// How long the passenger waits for the driver's answer, s.
    public static let answerWait = 10.0
    /// How long a sound the driver made is taken to carry on (or be repeated), s: a horn's double
    /// tap or a call is short, the device's ticks last the request's 30 s.
    public static func soundLasts(_ sound: LocatorSoundName) -> Double { sound == .device ? Double(LocatorRule.soundSeconds) : 10 }

    public init(automatic: Bool, timing: Timing = Timing()) {
        self.automatic = automatic
        self.timing = timing
    }

    public func isTicking(at time: Double) -> Bool { tickingUntil.map { time < $0 } ?? false }

    /// Notes an estimate while guiding; true when the guide should ask now.
    public mutating func shouldAsk(at time: Double, distance: Double, trend: Trend) -> Bool {
        if trend == .closer || trend == .farther || sureAt == nil { sureAt = time }
        guard automatic, failures == 0, !pending, !isTicking(at: time), !isAwaiting(at: time), distance.isFinite, distance <= timing.nearRange,
              let sureAt, time - sureAt >= timing.unsureAfter else { return false }
        if let askedAt, time - askedAt < timing.repeatAfter { return false }
        return true
    }

    /// When a turn on the spot would start (no direction for a while, at any distance): true
    /// when the car may be asked to tick instead. Farther than `nearRange` the ticks are heard
    /// less often, but a turn costs 12–24 s and the ticks point the way when heard; the turn is
    /// kept for when the car will not sound (refused) or has just sounded.
    public func mayAskInsteadOfTurning(at time: Double) -> Bool {
        guard automatic, failures == 0, !pending, !isTicking(at: time), !isAwaiting(at: time), !refused else { return false }
        if let askedAt, time - askedAt < timing.repeatAfter { return false }
        return true
    }

    /// A request was sent (by the guide or the passenger's key).
    public mutating func asked(at time: Double) {
        askedAt = time
        pending = true
    }

    /// The ride service answered: the request is with the driver (`.ticking`), whose answer is
    /// now awaited; nothing sounds yet.
    public mutating func answered(at time: Double, _ answer: LocatorAnswer) {
        pending = false
        if case .refused = answer {
            refused = true
            failures += 1
        } else {
            refused = false
        }
        switch answer {
        case .ticking: awaitingSince = time
        // Asked within the last 10 s: that request's answer is still awaited, or has come.
        case .tooSoon: break
        case .refused: break
        }
    }

    /// Whether the driver's answer is awaited at `time`.
    public func isAwaiting(at time: Double) -> Bool { awaitingSince.map { time - $0 < Self.answerWait } ?? false }

    /// The driver's answer to the awaited request: a sound made, or `none`. False (ignored)
    /// when none is awaited, or when the answer is older than the request (a replayed history).
    public mutating func driverAnswered(at time: Double, _ sound: LocatorSoundName, age: Double) -> Bool {
        guard let since = awaitingSince, age <= time - since + 2 else { return false }
        awaitingSince = nil
        guard sound != .none else {
            refused = true
            failures += 1
            return true
        }
        refused = false
        // The driver's own sound resets the count; his phone's tick (which answers for him
        // after a failure, `DriverCore`) does not: the guide does not ask him again by itself.
        if sound != .device { failures = 0 }
        self.sound = sound
        tickingUntil = time + Self.soundLasts(sound)
        return true
    }

    /// The wait ran out at `time` without an answer: true once, when it does.
    public mutating func answerOverdue(at time: Double) -> Bool {
        guard let since = awaitingSince, time - since >= Self.answerWait else { return false }
        awaitingSince = nil
        refused = true
        failures += 1
        return true
    }

    /// Whether a request may go now: none out or awaited, the car not ticking, and the ride
    /// service's least interval (with a second's slack for the two clocks) since the last.
    public func mayAsk(at time: Double) -> Bool {
        guard !pending, !isAwaiting(at: time), !isTicking(at: time) else { return false }
        return askedAt.map { time - $0 >= LocatorRule.minimumInterval + 1 } ?? true
    }

    /// Signal lost, or guiding restarted: the next direction is unknown again.
    public mutating func reset() { sureAt = nil }
}
