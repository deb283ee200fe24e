/// The escalation ladder (issue 37, point 4): when guiding makes no progress and the driver does
/// not help, the guide steps up, once each, in this order: a sound asked of the driver, then his
/// phone's own sound (his device ticks without him), then the ride word for when they meet face
/// to face, then "call your driver" (with his number when the ride carries one) or the
/// dispatcher. Before it, a silent driver's walk looped for as long as it lasted: "turn slowly on
/// the spot", "Signal lost, keep still", again and again.
///
/// Never a loop: each rung is said at most once a ride; a turn on the spot the guide starts by
/// itself is not asked for again within `Timing.turnWindow`; a turn followed by "Signal lost,
/// keep still" (cut short, or lost again after its "Stop. The car is ahead of you.") counts as
/// lost, and after `Timing.abortedTurns` of them the ladder steps up and the guide starts no turn
/// by itself until the driver's help (and never again after `abortedTurns + 1` in a ride), so
/// "turn on the spot" / "Signal lost, keep still" cannot alternate beyond that bound. Progress
/// (the clock the ladder steps on restarts) is what brings her nearer or the driver's help: a
/// distance nearer than any spoken before, "Stop. The car is ahead of you.", a sound the
/// driver's device said was made, the driver coming, a touch; the driver's help and the touch
/// also let the guide start turns again (a nearer band or a finished turn says nothing of whether
/// her body will block the signal the next time she turns). Nearer bands are finitely many, so a
/// wandering walk cannot hold the ladder back for ever.
///
/// A rung climbs only when the one below failed: after the driver's own sound (he helps) a stall
/// asks him again (`Timing.soundRetries` times) before the ladder passes over his phone, so
/// "call your dispatcher" never follows a helpful driver's one sound.
public struct Escalation: Sendable, Equatable {
    public enum Rung: Int, Sendable, CaseIterable, Comparable {
        /// A sound asked of the driver (a locator request: horn or voice, his choice by distance).
        case sound
        /// His phone's own sound: a second request, which his device answers by ticking when he
        /// did not answer the first (`DriverCore`).
        case phoneSound
        /// The ride word offered for when they meet (she asks him face to face, then presses w).
        case rideWord
        /// "Call your driver" (with his number) or the dispatcher; guiding goes on.
        case call

        public static func < (a: Rung, b: Rung) -> Bool { a.rawValue < b.rawValue }
    }

    public struct Timing: Sendable, Equatable {
        /// Without progress this long since the last progress or rung, the ladder steps up, s:
        /// a 12 s turn and a 10 s wait for the driver's answer fit in it.
        public var stall = 30.0
        /// The same while the driver says he is coming to her, s: getting out, maybe crossing,
        /// and walking 25 m take a minute and more (`DriverBehaviour`'s busy driver: up to 53 s
        /// on the same side).
        public var stallWhileComing = 90.0
        /// Turns on the spot followed by "Signal lost, keep still" (cut short, or lost again after
        /// "car ahead") before the ladder steps up and the guide stops starting turns by itself
        /// (until the driver helps; for the ride after one more).
        public var abortedTurns = 2
        /// A turn the guide starts by itself is not asked for again within this, s.
        public var turnWindow = 30.0
        /// After the driver's own sound came, a stall asks him for one again this many times
        /// before the ladder passes over his phone (he answers; it would add nothing).
        public var soundRetries = 1
        public init() {}
    }

    public let timing: Timing
    /// The rungs passed, in order: said, or passed over because they cannot help (no locator
    /// aid, no ride word, the ride word already offered).
    public private(set) var passed: [Rung] = []
    /// When each rung was said (guide time).
    public private(set) var said: [Rung: Double] = [:]
    /// Turns on the spot followed by a signal loss since the last help (see the type).
    public private(set) var abortedTurns = 0
    /// The same over the whole ride.
    public private(set) var abortedTurnsInRide = 0
    /// The driver's sound asked again after he helped (`Timing.soundRetries`).
    public private(set) var soundRetries = 0
    /// The last turn started was followed by a signal loss already (counted once).
    private var lastTurnLost = true
    /// The guide starts no turn by itself until the walk makes progress.
    public private(set) var turnsHeld = false
    /// The ladder's own `phoneSound` request is out: its acknowledgement names his phone.
    public internal(set) var phoneRequestOut = false
    /// The last progress or rung, guide time.
    private var since = 0.0
    /// Turns keep being cut short: the next rung at once.
    private var stepNow = false
    /// The driver did not help with a sound: his phone is asked at once (the later rungs keep
    /// to the clock: "call your dispatcher" 10 s after a request would be hasty).
    private var phoneDue = false
    private var lastTurn = -Double.infinity
    private var closest: DistanceBands.Band?
    private var closestFar: DistanceBands.Band?

    public init(timing: Timing = Timing()) { self.timing = timing }

    /// The next rung up, nil once the top was passed.
    public var next: Rung? { Rung.allCases.first { !passed.contains($0) } }

    /// The ladder starts counting (the arrival).
    mutating func start(at time: Double) { since = time }

    /// Progress: the clock restarts, and (unless `releasesTurns` is false) turns may start again.
    mutating func progress(at time: Double, releasesTurns: Bool = true) {
        since = time
        guard releasesTurns else { return }
        abortedTurns = 0
        turnsHeld = false
    }

    /// A distance spoken (the Bluetooth one, or the far field's): nearer than any before is progress.
    mutating func spoke(_ band: DistanceBands.Band?, far: Bool, at time: Double) {
        guard let band else { return }
        let best = far ? closestFar : closest
        guard best.map({ band < $0 }) ?? true else { return }
        if far { closestFar = band } else { closest = band }
        progress(at: time, releasesTurns: false)
    }

    /// Whether the guide may start a turn on the spot by itself now.
    func mayStartTurn(at time: Double) -> Bool {
        !turnsHeld && abortedTurnsInRide <= timing.abortedTurns && time - lastTurn >= timing.turnWindow
    }

    mutating func turnStarted(at time: Double) {
        lastTurn = time
        lastTurnLost = false
    }

    /// "Signal lost, keep still": the first after a turn the guide started (cutting it short, or
    /// after its "car ahead") is a turn that did not work.
    mutating func signalLost() {
        guard !lastTurnLost else { return }
        lastTurnLost = true
        abortedTurns += 1
        abortedTurnsInRide += 1
        guard abortedTurns >= timing.abortedTurns || abortedTurnsInRide > timing.abortedTurns, !turnsHeld else { return }
        turnsHeld = true
        stepNow = true
    }

    /// Whether a stall at `.phoneSound` asks the driver again (his last sound came) rather than
    /// passing over his phone.
    var mayRetrySound: Bool { soundRetries < timing.soundRetries }

    /// The driver's sound asked again at `time` (his last one came): the clock restarts, the
    /// rung stays where it is.
    mutating func retriedSound(at time: Double) {
        soundRetries += 1
        since = time
    }

    /// A sound request did not help (no answer, no sound): his phone is asked next, at once.
    mutating func rungFailed() { phoneDue = true }

    /// Whether the ladder should step up at `time`.
    func isDue(at time: Double, driverComing: Bool) -> Bool {
        guard let next else { return false }
        return stepNow || (phoneDue && next == .phoneSound) || time - since >= (driverComing ? timing.stallWhileComing : timing.stall)
    }

    /// `rung` was said at `time`: the clock restarts from it.
    mutating func gave(_ rung: Rung, at time: Double) {
        guard !passed.contains(rung) else { return }
        passed.append(rung)
        said[rung] = time
        since = time
        stepNow = false
        phoneDue = false
    }

    /// `rung` cannot help (nothing to say, or said already by another path): passed over,
    /// and the next is due as this one was.
    mutating func skip(_ rung: Rung) {
        guard !passed.contains(rung) else { return }
        passed.append(rung)
        if rung == .phoneSound { phoneDue = false }
    }
}
