import Foundation
import GuideAudio

/// Turn-to-find: the passenger holds the phone against the chest and turns slowly on the spot.
/// The body blocks 10 dB and more behind it (BENCHMARKS.md, "Simulated channel"), so the level
/// swings once per turn, lowest with the back to the car: a bearing that the slope of a walk
/// (3–5 dB of multipath over a few metres) cannot give.
///
/// Timing-based (no compass): a slow turn takes about `fullTurn` seconds, so the heading is known
/// from the time since the turn began. After one full turn the level's first harmonic over it,
/// a + b·cos(θ − φ), gives the car's heading φ: every sample counts, so neither a lucky fade nor
/// the flat front half (no body in the way anywhere there) decides it. The guide then says
/// "Stop" as φ comes round again. A tracking tone meanwhile follows the level (averaged over
/// `levelWindow`) relative to the best heard in this turn.
///
/// With a compass (headings fed by `heading(time:degrees:)`, fresh within `compassTimeout`): the
/// level is kept per heading (`HeadingBins`), the turn is full once `fullCoverage` degrees have
/// been faced, whatever the passenger's pace, and "Stop" is said as the heading the passenger
/// will rest at comes round to the strongest (within `compassTolerance`). A compass that falls
/// silent hands the turn back to timing, which has heard every sample all along.
public struct TurnToFind: Sendable {
    /// What decided a "Stop".
    public enum Method: String, Sendable, Equatable {
        case compass, timing
    }

    public struct Timing: Sendable, Equatable {
        /// Guided this long without a confident direction, the guide starts a turn by itself, s.
        public var quietBeforeTurn = 10.0
        /// A slow full turn on the spot, s (30°/s, what "turn slowly" asks for).
        public var fullTurn = 12.0
        /// The tracking tone's period, s.
        public var toneInterval = 0.5
        /// Raw samples averaged into the tone's level, s.
        public var levelWindow = 1.0
        /// "Stop" is said this much before the car's heading comes round: the passenger's reaction.
        public var reactionLead = 0.5
        /// Each tracking-tone step, dB below the best.
        public var toneStep = 3.0
        /// A compass silent this long is taken as gone (timing takes over), s. iio-sensor-proxy
        /// reports changes only, but a turning phone's heading changes many times a second.
        public var compassTimeout = 3.0
        /// Degrees of heading that make a full turn: 330, not 360, so a compass skipping a bin or
        /// a passenger stopping a little short still completes it; the harmonic fit needs no more.
        public var fullCoverage = 330.0
        /// "Stop" is said as the heading the passenger will rest at (the heading now carried on
        /// by the measured turn rate for `reactionLead`) reaches the strongest, and only within
        /// this many degrees of it. ±20°: a phone compass near a car's steel is good to 10–15°
        /// at best, and readings jump; a narrower window could be stepped over between two
        /// readings of a quick turn (45°/s at 5 Hz is 9° a reading, plus scatter) and the turn
        /// would go round again; a wider one lets a jumpy compass stop the passenger well off the
        /// car. The cane corrects a few degrees at the kerb anyway.
        public var compassTolerance = 20.0
        public init() {}
    }

    public enum Event: Equatable, Sendable {
        case tone(Earcon)
        /// The passenger faces the strongest direction: "Stop. The car is ahead of you."
        case stop
    }

    public let timing: Timing
    public private(set) var startedAt: Double?
    /// The best level heard in this turn (`levelWindow` averages).
    public private(set) var best: Double?
    /// When "Stop" is due, once a full turn has been heard.
    public private(set) var stopAt: Double?
    private var samples: [(time: Double, rssi: Double)] = []
    private var lastTone = -Double.infinity
    /// The latest compass reading, turning or not (a turn begun without one times the turn).
    public private(set) var lastHeading: (time: Double, degrees: Double)?
    /// The last second's readings, for the turn rate.
    private var recentHeadings: [(time: Double, degrees: Double)] = []
    /// The level per heading in this turn, while the compass reports.
    public private(set) var bins = HeadingBins()
    /// What decided the last "Stop".
    public private(set) var lastStop: Method?

    public init(timing: Timing = Timing()) { self.timing = timing }

    public var isActive: Bool { startedAt != nil }

    public mutating func begin(at time: Double) {
        startedAt = time
        best = nil
        stopAt = nil
        samples = []
        lastTone = -.infinity
        bins = HeadingBins()
        if let heading = freshHeading(at: time) { bins.turned(to: heading) }
    }

    public mutating func end() {
        startedAt = nil
        stopAt = nil
        samples = []
    }

    public mutating func sample(time: Double, rssi: Double) {
        guard isActive, rssi.isFinite else { return }
        samples.append((time, rssi))
        if let heading = freshHeading(at: time) { bins.add(rssi: rssi, at: heading) }
    }

    /// A compass reading: the passenger faces `degrees` (clockwise from north) at `time`.
    public mutating func heading(time: Double, degrees: Double) {
        guard degrees.isFinite else { return }
        let degrees = HeadingBins.wrapped(degrees)
        lastHeading = (time, degrees)
        recentHeadings.append((time, degrees))
        recentHeadings.removeAll { time - $0.time > 1 }
        if isActive { bins.turned(to: degrees) }
    }

    /// The heading now, if the compass has reported within `compassTimeout`.
    public func freshHeading(at time: Double) -> Double? {
        guard let last = lastHeading, time - last.time <= timing.compassTimeout else { return nil }
        return last.degrees
    }

    /// How fast the heading turns, degrees per second (signed: clockwise positive), over the
    /// last second's readings; 0 with too few to tell.
    public var turnRate: Double {
        guard let first = recentHeadings.first, let last = recentHeadings.last, last.time - first.time >= 0.3 else { return 0 }
        // Summed step by step: a second of a quick turn can exceed 180°.
        var swept = 0.0
        for (earlier, later) in zip(recentHeadings, recentHeadings.dropFirst()) {
            swept += HeadingBins.difference(later.degrees, earlier.degrees)
        }
        return swept / (last.time - first.time)
    }

    /// The car's compass heading, degrees, once the turn has faced `fullCoverage` degrees.
    public var compassCarHeading: Double? {
        bins.coveredDegrees >= timing.fullCoverage ? bins.strongest : nil
    }

    /// Mean of the last `levelWindow` of samples (nil with fewer than two).
    public func level(at time: Double) -> Double? {
        let recent = samples.suffix(while: { time - $0.time <= timing.levelWindow })
        guard recent.count >= 2 else { return nil }
        return recent.map(\.rssi).reduce(0, +) / Double(recent.count)
    }

    /// The car's heading, radians from the heading at the turn's start in the turning direction,
    /// from the level's first harmonic over the last full turn (nil before one).
    public func carHeading(at time: Double) -> Double? {
        guard let start = startedAt, time - start >= timing.fullTurn else { return nil }
        var c = 0.0, s = 0.0
        let turn = samples.suffix(while: { time - $0.time < timing.fullTurn })
        guard turn.count >= 8 else { return nil }
        let mean = turn.map(\.rssi).reduce(0, +) / Double(turn.count)
        for sample in turn {
            let theta = 2 * Double.pi * (sample.time - start) / timing.fullTurn
            c += (sample.rssi - mean) * cos(theta)
            s += (sample.rssi - mean) * sin(theta)
        }
        return atan2(s, c)
    }

    /// What to play at `time`, if anything; `.stop` ends the turn.
    public mutating func tick(time: Double) -> Event? {
        guard let start = startedAt else { return nil }
        if let facing = freshHeading(at: time) {
            // The compass knows where the passenger faces: no assumed pace, no timed stop.
            // Where the passenger will rest after reacting, relative to the car: "Stop" once it
            // has come round to the car (either way round, or standing still near it).
            let rate = turnRate
            if let car = compassCarHeading,
               case let resting = HeadingBins.difference(facing + rate * timing.reactionLead, car),
               abs(resting) <= timing.compassTolerance, abs(rate) < 5 || resting * rate >= 0 {
                end()
                lastStop = .compass
                return .stop
            }
        } else if stopAt == nil, let heading = carHeading(at: time) {
            // The next time the turn faces `heading`, leaving the passenger time to react.
            let turns = (time + timing.reactionLead - start) / timing.fullTurn
            var pass = (turns - turns.truncatingRemainder(dividingBy: 1)) + positiveFraction(heading / (2 * .pi))
            if pass < turns { pass += 1 }
            stopAt = start + pass * timing.fullTurn - timing.reactionLead
        }
        if let due = stopAt, time >= due, freshHeading(at: time) == nil {
            end()
            lastStop = .timing
            return .stop
        }
        guard let level = level(at: time) else { return nil }
        // Only windows wholly inside the turn count towards the best.
        if time - start >= timing.levelWindow, level > (best ?? -.infinity) { best = level }
        guard let best, time - lastTone >= timing.toneInterval else { return nil }
        lastTone = time
        let steps = Int(((best - level) / timing.toneStep).rounded(.down))
        let tones = Earcon.trackingTones
        return .tone(tones[max(0, tones.count - 1 - steps)])
    }

    private func positiveFraction(_ x: Double) -> Double {
        let f = x.truncatingRemainder(dividingBy: 1)
        return f < 0 ? f + 1 : f
    }
}

extension Array {
    /// The longest suffix whose elements all satisfy `predicate` (samples are in time order).
    fileprivate func suffix(while predicate: (Element) -> Bool) -> ArraySlice<Element> {
        var first = endIndex
        while first > startIndex, predicate(self[first - 1]) { first -= 1 }
        return self[first...]
    }
}
