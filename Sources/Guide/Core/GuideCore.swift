import BeaconCore
import Foundation
import GuideAudio
import Phrasebook
import RideSession

/// The passenger guide as a pure, time-driven state machine: inputs in, actions out, no I/O.
/// waiting → searching → guiding ⇄ signal lost → holding → touch → confirming → confirmed.
///
/// A touch is "detected" only when both devices feel it (issue 12): this one's signal at the
/// touch level, and the driver's device reporting, through the ride's event stream, an
/// observation window that meets this one's (`TouchWindows`). Until then the guide holds:
/// "Hold the phones together", the pulse going on.
///
/// Cues follow three rules. Direction motifs only when the ranger's trend is confident (a wrong
/// "closer" walks a blind passenger the wrong way; silence is better). Silence of the pulse means
/// "no signal", never "arrived": the pulse stops only with "signal lost" or the touch chime.
/// Spoken distance bands change with hysteresis, so standing still is quiet.
public struct GuideCore: Sendable {
    public struct Timing: Sendable, Equatable {
        /// Pulse interval far away, s (about one per 1.5 s), and the shortest, at arm's reach.
        public var slowestPulse = 1.5
        public var fastestPulse = 0.15
        /// A held direction's motif is repeated this often, s.
        public var directionRepeat = 3.0
        /// Full verbosity: distance and trend again after this long without speech while moving, s.
        public var reassurance = 10.0
        /// Samples before the first distance is spoken (the filter's first level is a median of few).
        public var samplesBeforeSpeaking = 10
        /// A new band is spoken once the estimate has been in it this long, s; a farther band
        /// without a "farther" trend only after `awayDwell`.
        public var bandDwell = 1.0
        public var awayDwell = 4.0
        /// Least time between two spoken band changes, s: 3 s, so no distance said contradicts
        /// one said less than 3 s before (issue 16).
        public var bandSpacing = 3.0
        /// After the touch ends, Enter still confirms for this long, s.
        public var touchGrace = 5.0
        /// Without a signal since arrival, "searching" is repeated this often, s.
        public var searchingRepeat = 15.0
        public init() {}
    }

    public let ride: GuideRide
    public let verbosity: Verbosity
    public let phrases: PhraseTable
    public let timing: Timing
    public let aids: GuideAids
    public internal(set) var state: GuideState = .waiting
    /// When to ask for the car's locator sound, and whether it ticks.
    public internal(set) var locator: LocatorAsking
    public internal(set) var ranger: Ranger
    public private(set) var lastEstimate: RangeEstimate?
    public private(set) var lastUtterance: Utterance?

    private var matcher: IdentityMatcher
    var bands = DistanceBands()
    /// How far a spoken distance may be off (`DistanceUncertainty`): from the calibration, or
    /// the uncalibrated prior; `adoptLine` narrows it once the pair's line is known.
    public internal(set) var uncertainty: DistanceUncertainty
    /// The line spoken distances are read from: the calibration's, or the pair's once learnt.
    public internal(set) var distanceModel: PathLossModel
    /// The distance band last spoken (nil after a signal loss, until the next).
    public internal(set) var spokenBand: DistanceBands.Band?
    var candidateBand: DistanceBands.Band?
    var candidateSince = 0.0
    var lastBandSpeech = -Double.infinity
    var lastTrendWord: (closer: Bool, time: Double)?
    var lastSpeech = -Double.infinity
    var pulseInterval: Double?
    var heldDirection: Trend = .unknown
    var lastDirectionCue = -Double.infinity
    var samplesSinceSignal = 0
    private var lastSearchingPhrase = -Double.infinity
    /// The arrival said the guide is searching: the first signal is announced.
    var searchingSaid = false
    var lastMatch: (identity: BeaconIdentity, slot: UInt64, unixTime: Double)?
    var touchPeak = -Double.infinity
    var touchSamples = 0
    var touchEnded: Double?
    /// This device's current touch: when its signal reached the touch level, and its last
    /// touching sample (wall clock).
    var touchFrom: Double?
    var touchUntil: Double?
    /// The driver's device's latest observation window, from the event stream.
    var driverWindow: (from: Double, until: Double)?
    private var serviceReachable = true
    public internal(set) var turn: TurnToFind
    /// The steps the guide takes when guiding makes no progress and the driver does not help
    /// (`Escalation`): each rung once, never a loop.
    public internal(set) var escalation = Escalation()
    /// Last moment with a confident direction (or a new start: arrival, signal back, turn's end).
    var lastDirectionKnown = 0.0
    /// Requests for the ride service beyond proofs and the locator (`GuidePost`): the runtime
    /// takes them with `takeOutbox()` after each input.
    public internal(set) var outbox: [GuidePost] = []
    /// The driver is coming to the passenger (said by the driver), or the car is across the
    /// street: no direction is given any more (it could lead into the roadway); the pulse and
    /// distances go on, and the guide waits for the touch.
    public internal(set) var meetingHeld = false
    /// The car is across the street (the guide judged it, or the driver said so).
    public internal(set) var carAcross = false
    /// Judges whether the car is across the street (`AcrossTheStreet`).
    public var acrossJudge = AcrossTheStreet()
    /// When "Hold the phones together" was first said for this touch (the ride word is offered
    /// `GuideCore.rideWordAfter` later if the touch is not felt).
    var holdSaidAt: Double?
    /// The ride word has been offered (said); a `w` then confirms with it.
    public internal(set) var wordOffered = false
    /// A ride-word confirmation is on its way.
    var wordPending = false
    /// Since when the driver, coming to her, has been within reach by the estimate; when (guide
    /// time) the driver's device last said it felt the touch.
    var driverBesideSince: Double?
    var driverFeltAt: Double?
    /// The touch not felt this long after "Hold the phones together", s: the ride word.
    public static let rideWordAfter = 10.0
    /// How the passenger confirms, named for the device in "Touch detected. … to confirm your
    /// ride": `.guideConfirmEnter` (a terminal's key) or `.guideConfirmButton` (a front end's button).
    public var confirmControl = PhraseID.guideConfirmEnter
    /// The two phones' satellite fixes and what the guide says of them until the Bluetooth
    /// cues take over (issue 35, `GuideCore+FarField`).
    public internal(set) var farField = FarField()
    /// The far field's constants (benchmarks choose them on seeds 1-500).
    public var farFieldRules: FarField.Rules {
        get { farField.rules }
        set { farField.rules = newValue }
    }

    public init(ride: GuideRide, verbosity: Verbosity, phrases: PhraseTable = .english,
                calibration: Calibration = Calibration(model: .default), timing: Timing = Timing(),
                aids: GuideAids = .none, turnTiming: TurnToFind.Timing = TurnToFind.Timing(),
                traffic: TrafficSide = .right) {
        self.ride = ride
        farField.traffic = traffic
        self.aids = aids
        turn = TurnToFind(timing: turnTiming)
        self.verbosity = verbosity
        self.phrases = phrases
        self.timing = timing
        locator = LocatorAsking(automatic: aids.includesLocator)
        ranger = Ranger(calibration: calibration)
        uncertainty = DistanceUncertainty(calibration: calibration)
        distanceModel = calibration.model
        matcher = IdentityMatcher(identity: ride.identity, lookingFor: .driver)
    }

    /// The first actions: scan duty-cycled until the driver arrives. `arrived`: the driver is
    /// there already (the caller hands `.arrived` next), so "Waiting for your driver" is not said
    /// before "Your driver has arrived" (issue 25: one consistent opening).
    public mutating func start(time: Double, arrived: Bool = false) -> [GuideAction] {
        var out: [GuideAction] = [.scan(.dutyCycled)]
        if !arrived { say(&out, time, [.guideWaitingForDriver], [:], brief: true) }
        return out
    }

    /// The ride-service posts decided since the last call (`GuidePost`).
    public mutating func takeOutbox() -> [GuidePost] {
        defer { outbox = [] }
        return outbox
    }

    public mutating func handle(_ input: GuideInput) -> [GuideAction] {
        var out: [GuideAction] = []
        switch input {
        case .driverSounded(let time, let sound, let age): driverSounded(&out, time, sound, age: age)
        case .driverMeeting(let time, let move): driverMeeting(&out, time, move)
        case .walking(let time, let walking): acrossJudge.walking(time: time, walking)
        case .wordAnswered(let time, let answer): wordAnswered(&out, time, answer)
        case .arrived(let time): arrived(&out, time)
        case .sighting(let time, let unixTime, let rssi, let beacon): sighting(&out, time, unixTime, rssi, beacon)
        case .tick(let time): tick(&out, time)
        case .heading(let time, let degrees): turn.heading(time: time, degrees: degrees)
        case .positions(let time, let own, let driver): positions(&out, time, own: own, driver: driver)
        case .key(let time, let key): pressed(&out, time, key)
        case .proofAnswered(let time, let answer): answered(&out, time, answer)
        case .driverFeltTouch(let time, let from, let until):
            driverWindow = (from, until)
            driverFeltAt = time
            if state == .holding, feltByBoth { detectTouch(&out, time) }
        case .rideConfirmed(let time): confirm(&out, time)
        case .rideCancelled(let time):
            guard !isOver else { break }
            state = .cancelled
            silencePulse(&out)
            say(&out, time, [.guideRideCancelled], [:], always: true)
            out += [.scan(.off), .finished]
        case .service(let time, let reachable):
            guard reachable != serviceReachable else { break }
            serviceReachable = reachable
            say(&out, time, [reachable ? .guideServiceBack : .guideServiceUnreachable], [:], brief: true)
        case .locatorAnswered(let time, let answer):
            locatorAnswered(&out, time, answer)
        }
        return out
    }

    var isOver: Bool { state == .confirmed || state == .cancelled || state == .stopped }

    // MARK: inputs

    private mutating func arrived(_ out: inout [GuideAction], _ time: Double) {
        guard state == .waiting else { return }
        state = .searching
        lastDirectionKnown = time
        lastSearchingPhrase = time
        escalation.start(at: time)
        out.append(.scan(.continuous))
        out.append(.cue(GuideCue(time: time, sound: .earcon(.attention))))
        // A signal already heard while waiting (the driver advertised early) guides at once;
        // without one, "follow the sound" would be a promise: the passenger is told the guide is
        // searching, and "Signal found. Follow the sound." when it is heard.
        if let estimate = lastEstimate, !ranger.isStale(at: time) {
            say(&out, time, [.guideDriverArrived], ["name": ride.driverName, "vehicle": ride.vehicle], brief: true)
            state = .guiding
            guide(&out, time, estimate)
        } else {
            say(&out, time, [.guideDriverArrivedSearching], ["name": ride.driverName, "vehicle": ride.vehicle], brief: true)
            searchingSaid = true
        }
    }

    private mutating func sighting(_ out: inout [GuideAction], _ time: Double, _ unixTime: Double,
                                   _ rssi: Double, _ beacon: IBeacon) {
        guard !isOver, let slot = matcher.match(beacon, at: unixTime) else { return }
        lastMatch = (BeaconIdentity(beacon), slot, unixTime)
        // One ranger whatever the slot: a rotation is the same car, so the filter carries across.
        let estimate = ranger.update(time: time, rssi: rssi)
        lastEstimate = estimate
        samplesSinceSignal += 1
        switch state {
        case .waiting, .confirming:
            noteTouch(estimate)
        case .searching:
            state = .guiding
            // While the satellite vector guides, the signal is announced at the hand-over.
            if searchingSaid, !farField.leads(at: time) {
                searchingSaid = false
                say(&out, time, [.guideSignalFound], [:], brief: true)
            }
            guide(&out, time, estimate)
        case .signalLost:
            state = .guiding
            spokenBand = nil
            lastDirectionKnown = time
            if !farField.leads(at: time) { say(&out, time, [.guideSignalBack], [:], brief: true) }
            guide(&out, time, estimate)
        case .guiding, .holding, .touch:
            guide(&out, time, estimate)
        case .confirmed, .cancelled, .stopped:
            break
        }
    }

    private mutating func tick(_ out: inout [GuideAction], _ time: Double) {
        // The driver's answer is awaited, and the ride word offered, whatever the signal does.
        if state != .waiting {
            meetingTick(&out, time)
            escalate(&out, time)
        }
        switch state {
        case .searching:
            if time - lastSearchingPhrase >= timing.searchingRepeat, !farField.leads(at: time) {
                lastSearchingPhrase = time
                say(&out, time, [.guideSearching], [:], brief: true)
            }
        case .guiding, .holding, .touch:
            if ranger.isStale(at: time) {
                loseSignal(&out, time)
                return
            }
            let estimate = ranger.noSample(at: time)
            if state == .touch, !estimate.touch, let ended = touchEnded, time - ended > timing.touchGrace {
                state = .guiding
                touchFrom = nil
            }
            if state == .guiding || state == .holding { pulse(&out, time, estimate) }
            if state == .guiding, !meetingHeld, !isOver, !farField.leads(at: time) { turnToFind(&out, time, estimate) }
        default:
            break
        }
    }

    private mutating func pressed(_ out: inout [GuideAction], _ time: Double, _ key: GuideKey) {
        switch key {
        case .quit:
            guard !isOver else { return }
            state = .stopped
            silencePulse(&out)
            say(&out, time, [.guideGoodbye], [:], always: true)
            out += [.scan(.off), .finished]
        case .repeatLast:
            if let last = lastUtterance { out.append(.cue(GuideCue(time: time, sound: .speech(last)))) }
        case .whereIsDriver:
            whereIsDriver(&out, time)
        case .soundLocator:
            guard !isOver, state != .waiting else { return }
            guard !locator.pending else { return }
            askForSound(&out, time)
        case .rideWord:
            rideWordKey(&out, time)
        case .findDirection:
            guard state == .guiding, !turn.isActive, !meetingHeld else { return }
            beginTurn(&out, time)
        case .confirm:
            guard state == .touch, let match = lastMatch else {
                if state == .holding { say(&out, time, [.guideHoldTogether], [:], always: true) }
                if state == .guiding || state == .signalLost || state == .searching {
                    say(&out, time, [.guideNotTouching], [:], always: true)
                }
                return
            }
            state = .confirming
            say(&out, time, [.guideConfirming], [:], brief: true)
            let until = touchUntil ?? match.unixTime
            out.append(.postProof(TouchObservation(identity: match.identity, slot: match.slot,
                                                   peakFilteredRSSI: touchPeak, samples: max(1, touchSamples),
                                                   unixTime: until, firstUnixTime: touchFrom ?? until)))
        }
    }

    /// Speaks unless verbosity forbids: `always` phrases (answers to a key, the confirmation)
    /// are spoken even with earcons only; `brief` ones from brief up.
    mutating func say(_ out: inout [GuideAction], _ time: Double, _ keys: [PhraseID],
                              _ arguments: [String: String], always: Bool = false, brief: Bool = false) {
        if keys.contains(.guideHoldTogether), holdSaidAt == nil { holdSaidAt = time }
        guard always || (brief && verbosity != .earcons) || verbosity == .full else { return }
        let text = keys.map { phrases.text(for: Phrase($0, arguments)) }.filter { !$0.isEmpty }.joined(separator: " ")
        let utterance = Utterance(keys: keys, text: text)
        lastUtterance = utterance
        lastSpeech = time
        out.append(.cue(GuideCue(time: time, sound: .speech(utterance))))
    }
}
