import BeaconCore
import Phrasebook
import RideRules
import RideWire

/// The driver's side at the kerb as a pure state machine: hears the passenger's beacon, decides
/// when the devices touch, when to send (and re-send) the driver's touch proof, and when the ride
/// is over. It reads no clock and does no I/O: `DriverSession` feeds it in real time, the
/// simulator in virtual time.
public struct DriverCore: Sendable {
    /// How a session at the kerb ended (`Action.finished`, `DriverSession.run`).
    public enum Outcome: Equatable, Sendable {
        /// The ride is confirmed: the right passenger met this car.
        case confirmed
        /// The ride was completed (by the driver or an operator) before the touch.
        case completed
        /// The ride was cancelled.
        case cancelled
        /// The ride service's stream ended for good, or the radio cannot advertise; the reason in words.
        case failed(String)
    }

    /// Everything the core hears, each with the times it happened at: `time` on the runtime's
    /// monotonic timeline (`SessionClock.now`), `unixTime` on the wall clock. The runtime
    /// (`DriverSession`, the simulator) turns radio, keys and the ride's stream into these.
    public enum Input: Sendable {
        /// An advertisement as it arrived (`time` its arrival, not when it was read): perhaps
        /// the passenger's beacon, perhaps anyone's.
        case sighting(time: Double, unixTime: Double, rssi: Double, beacon: IBeacon)
        /// The driver pressed Enter: prove the latest touch.
        case confirm(time: Double)
        /// The answer to a proof sent by `.postProof`.
        case proofAnswered(ProofAnswer, repeating: Bool)
        /// The ride service's news of the ride (`RideService.rideUpdates`), bar locator
        /// requests and `across`, which the runtime stamps (`.locatorRequested`, `.passengerSaysAcross`).
        case ride(RideUpdate)
        /// The passenger asked for the locator sound at `requestedAt` (wall clock, s since 1970);
        /// `time` and `unixTime` are now.
        case locatorRequested(time: Double, unixTime: Double, requestedAt: Double)
        /// The driver pressed a key (`DriverKey.confirm` is `.confirm`).
        case key(time: Double, DriverKey)
        /// The runtime's report on the device's tick started by `.locator(.start)`: `played`
        /// when sounding samples reached an audio output; else `reason` says why not.
        case locatorPlayed(time: Double, played: Bool, reason: String)
        /// The passenger asked the driver to come to her at `requestedAt` (wall clock); `time`
        /// and `unixTime` are now (issue 37, point 2).
        case comeRequested(time: Double, unixTime: Double, requestedAt: Double)
        /// What became of a post (`.answerLocator`, `.answerCome`, `.meeting`): `failure` nil when the ride service
        /// took it, else why not. What the passenger is told is said to the driver only now.
        case posted(Posted, time: Double, failure: String?)
        /// The passenger's side said the car is across the street (`car_across`), at this wall-clock time.
        case passengerSaysAcross(time: Double)
        /// The latest satellite fixes (issue 35): this device's (carrying the car's parked
        /// course) and the passenger's from the ride service; either may be nil. Where she is
        /// from the car is told to the driver (`DriverCore+Positions`).
        case positions(time: Double, own: GeoFix?, passenger: GeoFix?)
    }

    /// A post whose delivery the runtime reports back (`Input.posted`).
    public enum Posted: Hashable, Sendable {
        case locatorAnswer(LocatorSoundName)
        case comeAnswer(ComeAnswer)
        case meeting(MeetingMove)
    }

    /// The car's locator sound, played by the runtime.
    public enum LocatorSound: Equatable, Sendable {
        /// Tick once a second for this long, s (from now; a running sound restarts).
        case start(seconds: Double)
        /// Stop ticking now.
        case stop
    }

    /// What the core asks its runtime to do, in the order given: speak, log, post to the ride
    /// service, play the locator, or stop.
    public enum Action: Equatable, Sendable {
        /// Say (and print) a fixed phrase.
        case say(DriverPhrase)
        /// A line for the operator's log (stderr), not spoken.
        case log(String)
        /// Send this proof; `repeating` when it re-proves a touch already confirmed.
        case postProof(TouchObservation, repeating: Bool)
        /// Start or stop the car's locator sound on the device.
        case locator(LocatorSound)
        /// Words to print and speak that are not a fixed phrase (the sound to make, the
        /// passenger's distance, the ride word).
        case tell(String)
        /// Post the driver's answer to the locator request (`locator_answered`).
        case answerLocator(LocatorSoundName)
        /// Post a meeting move (`driver_coming`, `car_across`).
        case meeting(MeetingMove)
        /// Post the answer to her come request (`come_received`, `come_answered`).
        case answerCome(ComeAnswer)
        /// The session is over; nothing follows.
        case finished(Outcome)
    }

    /// The oldest touch the driver's Enter still proves, s: the server refuses proofs older than
    /// `TouchProof.maximumAge` (RideWire); 2 s are kept for the trip.
    public static let freshness = TouchProof.maximumAge - 2
    /// Under the mutual policy the server pairs the two sides' proofs received within
    /// `MutualTouchRule.pairingWindow` of each other; re-proving every half window while the
    /// devices still touch keeps one inside it whenever the passenger confirms.
    public static let resendInterval = MutualTouchRule.pairingWindow / 2
    /// How long the locator sounds after a request (`LocatorRule.soundSeconds`, the server's
    /// `soundSeconds`), s.
    public static let locatorSeconds = Double(LocatorRule.soundSeconds)

    /// Prove a touch as soon as it is felt (`--auto-confirm`), without waiting for Enter.
    public let autoConfirm: Bool
    /// Who the passenger is, the sounds allowed, the ride word (`DriverMeeting`).
    public let meeting: DriverMeeting
    /// The passenger's distance bounds, m, for a filtered level (dBm): the guide's own claim
    /// code where the runtime has it (`driver arrive` passes DistanceUncertainty's); without it a
    /// factor of 3 either side of the estimate.
    private let distanceBounds: @Sendable (RangeEstimate) -> (low: Double, high: Double)
    /// The locator request being answered: when it came and what the driver was asked to do.
    public private(set) var asking: (time: Double, instruction: LocatorInstruction)?
    /// The driver let the last request pass unanswered, or said he cannot: the next one is
    /// answered by the device's own tick, the passenger's guide asking his phone (issue 37, 4).
    private var driverDidNotHelp = false
    /// The driver said "I'm coming to you".
    public private(set) var coming = false
    /// Her come request waiting for the driver's answer: when it came (monotonic).
    public private(set) var comeAskedAt: Double?
    /// The sentence saying what the passenger is told, held until the post that tells her was
    /// delivered (`.posted`), with the come request it answers (to ask again if it was not).
    private var toldOnDelivery: [Posted: (phrase: PhraseID, request: Double?)] = [:]
    /// When the passenger made the last locator request handled (wall clock): each request is
    /// known by it, not by when it came here.
    private var lastRequestedAt: Double?
    /// The locator request his key answered, while the answer is on its way: open again if it
    /// was not delivered.
    private var answeredAsking: (time: Double, instruction: LocatorInstruction)?
    private var acrossToldAt: Double?
    /// The passenger's distance in words (`DistanceClaims`); nil: not said.
    private var claims: (any DistanceClaims)?
    /// The passenger's notes have been said with her first distance.
    private var notesSaid = false
    private var touch: CounterpartTouch
    private var touching = false
    /// Monotonic time of the last touching advertisement.
    private var lastTouchAt: Double?
    /// Set once the driver confirmed this touch (Enter or auto-confirm); cleared by a refusal.
    private var confirming = false
    private var sentAt: Double?
    /// Monotonic time the locator sound runs out, while it plays.
    public private(set) var locatorUntil: Double?
    /// How the session ended; nil while it goes on (every input after it is ignored).
    public private(set) var outcome: Outcome?
    /// The driver's language (the driver's settings): every sentence the device says or prints.
    public var book: Phrasebook = .english
    /// The satellite fixes and when her position was last told (`DriverCore+Positions`).
    public var satellite = DriverSatellite()

    /// A core for the ride whose rotating identity is `identity` (the passenger's beacon is
    /// recognised by it), touch judged with `calibration`; `distanceBounds` and `claims` say what
    /// may be said of the passenger's distance (see the properties).
    public init(identity: RotatingIdentity, calibration: Calibration = Calibration(model: .default), autoConfirm: Bool,
                meeting: DriverMeeting = DriverMeeting(),
                distanceBounds: (@Sendable (RangeEstimate) -> (low: Double, high: Double))? = nil,
                claims: (any DistanceClaims)? = nil) {
        self.autoConfirm = autoConfirm
        self.claims = claims
        self.meeting = meeting
        self.distanceBounds = distanceBounds ?? { ($0.distance / 3, $0.distance * 3) }
        touch = CounterpartTouch(identity: identity, lookingFor: .passenger, calibration: calibration)
    }

    /// The observation a proof would carry now (nil before the first touch).
    public var observation: TouchObservation? { touch.observation }

    /// The passenger's latest estimate, if heard within `DriverMeeting.estimateFreshness`.
    public func passengerEstimate(at time: Double) -> RangeEstimate? {
        guard let estimate = touch.lastEstimate, time - estimate.time <= DriverMeeting.estimateFreshness else { return nil }
        return estimate
    }

    /// The farthest the passenger may be, m (nil when not heard lately).
    public func passengerFarthest(at time: Double) -> Double? {
        passengerEstimate(at: time).map { distanceBounds($0).high }
    }

    /// Takes one input and returns what to do about it, in order; the only way the core moves.
    /// Pure: the same inputs give the same actions, so tests and the simulator replay a meeting
    /// exactly. After `.finished` it returns nothing.
    ///
    /// ```swift
    /// var core = DriverCore(identity: identity, autoConfirm: true)
    /// for action in core.handle(.sighting(time: 12.3, unixTime: 1_700_000_012.3, rssi: -28, beacon: seen)) {
    ///     if case .postProof(let observation, _) = action { /* post TouchProof(observation) */ }
    /// }
    /// ```
    public mutating func handle(_ input: Input) -> [Action] {
        guard outcome == nil else { return [] }
        switch input {
        case .sighting(let time, let unixTime, let rssi, let beacon):
            return sighting(time: time, unixTime: unixTime, rssi: rssi, beacon: beacon)
        case .confirm(let time):
            return submit(at: time, repeating: false)
        case .proofAnswered(let answer, let repeating):
            return answered(answer, repeating: repeating)
        case .ride(let update):
            return rideUpdate(update)
        case .locatorRequested(let time, let unixTime, let requestedAt):
            return locatorRequested(time: time, unixTime: unixTime, requestedAt: requestedAt)
        case .key(let time, let key):
            return pressed(key, at: time)
        case .locatorPlayed(let time, let played, let reason):
            return locatorPlayed(at: time, played: played, reason: reason)
        case .comeRequested(let time, let unixTime, let requestedAt):
            return comeRequested(at: time, age: max(0, unixTime - requestedAt))
        case .posted(let post, _, let failure):
            return posted(post, failure: failure)
        case .passengerSaysAcross(let time):
            // The driver's own `x` comes back on the stream too: told once.
            if let told = acrossToldAt, time - told < 30 { return [] }
            acrossToldAt = time
            return [.tell(Self.crossingWords(meeting.passengerName, in: book))]
        case .positions(let time, let own, let passenger):
            return positions(time: time, own: own, passenger: passenger)
        }
    }

    /// A locator request, asked of the driver in words chosen by the passenger's distance and
    /// the sounds the deployment allows (`LocatorInstruction.choose`). The passenger hears of a
    /// sound only once it is made: the driver's key (`y`), or for the device's tick the runtime's
    /// report that it played (`.locatorPlayed`). A stream that replays the ride's history brings
    /// requests the passenger has stopped waiting for (`DriverMeeting.answerWindow`): they are
    /// not asked of the driver. Once per request, known by when the passenger made it (a stream
    /// that reconnects brings it again): not by when it came here, since her guide's second
    /// request 11 s after the first by her clock may come less than 10 s after it here when the
    /// first was delayed more, and it is a new request (his phone's, `GuideCore+Escalation`).
    private mutating func locatorRequested(time: Double, unixTime: Double, requestedAt: Double) -> [Action] {
        let age = max(0, unixTime - requestedAt)
        guard age < DriverMeeting.answerWindow, !touching else { return [] }
        if let last = lastRequestedAt, requestedAt <= last { return [] }
        lastRequestedAt = requestedAt
        // A request still held here was not answered: she stopped waiting for it.
        if let asking, asking.instruction != .device { driverDidNotHelp = true }
        let byItself = driverDidNotHelp && meeting.sounds.contains(.device)
        guard let instruction = byItself ? .device : LocatorInstruction.choose(farthest: passengerFarthest(at: time), allowed: meeting.sounds) else {
            return [.answerLocator(.none), .log(book(.driverLogNoSoundsAllowed))]
        }
        asking = (time, instruction)
        let words = Action.tell(instruction.words(passenger: meeting.passengerName, in: book))
        guard instruction == .device else { return [words] }
        let remaining = Self.locatorSeconds - age
        locatorUntil = time + remaining
        return [words, .locator(.start(seconds: remaining))]
    }

    /// Her come request: the driver is told, in his language, and his device tells hers it has
    /// the request (`received`), so her phone says so only now. A replayed history's request she
    /// stopped waiting for (`RideLimits.comeAnswerWait`) is not asked again.
    private mutating func comeRequested(at time: Double, age: Double) -> [Action] {
        guard age < RideLimits.comeAnswerWait else { return [] }
        comeAskedAt = time
        return [.tell(book(.driverComeAsked, passenger)), .answerCome(.received)]
    }

    /// A post's fate: delivered, what the passenger is told is said to the driver; not delivered,
    /// he is told she was not told, and may answer again (the request or "I'm coming" is open
    /// again). The reason is for the operator's log.
    private mutating func posted(_ post: Posted, failure: String?) -> [Action] {
        let held = toldOnDelivery.removeValue(forKey: post)
        guard let failure else {
            if case .locatorAnswer = post { answeredAsking = nil }
            return held.map { [.tell(book($0.phrase, passenger))] } ?? []
        }
        let log = Action.log(book(.driverLogNotDelivered, ["what": .text(post.wireName), "reason": .text(failure)]))
        switch post {
        case .locatorAnswer:
            // Not taken: the request is his to answer again while she still waits for it.
            if held != nil, asking == nil, let answered = answeredAsking { asking = answered }
            answeredAsking = nil
            guard held != nil else { return [log] }
            return [log, .tell(book(.driverAnswerNotDelivered, passenger))]
        case .comeAnswer(.received):
            return [log]
        case .comeAnswer:
            if let request = held?.request, comeAskedAt == nil { comeAskedAt = request }
            coming = false
            return [log, .tell(book(.driverAnswerNotDelivered, passenger))]
        case .meeting(let move):
            if move == .coming { coming = false }
            return [log, .tell(book(.driverAnswerNotDelivered, passenger))]
        }
    }

    /// "Ana is about 15 meters away" (with her notes the first time) / "Ana is getting closer":
    /// only what the claim code supports, only when it changes.
    private mutating func passengerDistance(at time: Double) -> [Action] {
        guard var claims, let estimate = touch.lastEstimate else { return [] }
        let words = claims.claim(estimate, at: time)
        self.claims = claims
        guard let words else { return [] }
        var text = book(.driverPassengerDistance, ["name": .text(meeting.passengerName), "distance": .text(words)])
        if !notesSaid, let notes = meeting.notes, !notes.isEmpty {
            notesSaid = true
            text += " " + book(.driverLookFor, ["notes": .text(notes)])
        }
        return [.tell(text)]
    }

    /// The driver's keys: the locator answer (y / n), "I'm coming" (c), the car across the
    /// street (x), the ride word (w), Enter (confirm the touch).
    private mutating func pressed(_ key: DriverKey, at time: Double) -> [Action] {
        switch key {
        case .confirm:
            return submit(at: time, repeating: false)
        case .done, .cannot:
            guard let asking, asking.instruction != .device else {
                return [.tell(book(.driverNoSoundAsked))]
            }
            self.asking = nil
            guard time - asking.time <= DriverMeeting.answerWindow else {
                return [.tell(book(.driverTooLate, passenger))]
            }
            driverDidNotHelp = key == .cannot
            // What she is told is said to him once the ride service took his answer (`posted`).
            let sound = key == .cannot ? LocatorSoundName.none : asking.instruction.sound
            answeredAsking = asking
            toldOnDelivery[.locatorAnswer(sound)] = (key == .cannot ? .driverToldCannot : .driverToldListen, nil)
            return [.answerLocator(sound)]
        case .coming:
            // With both positions her guide tells her to walk on and meet him (`GuideCore+FarField`).
            let told: PhraseID = satellite.vector(at: time) != nil ? .driverToldComingHalfway : .driverToldComing
            // The answer to her come request is his coming, said to her as his answer. What she
            // is told is said to him once the ride service took it (`posted`).
            if let request = comeAskedAt {
                comeAskedAt = nil
                coming = true
                toldOnDelivery[.comeAnswer(.coming)] = (told, request)
                return [.answerCome(.coming)]
            }
            guard !coming else { return [.tell(book(.driverAlreadyComing, passenger))] }
            coming = true
            toldOnDelivery[.meeting(.coming)] = (told, nil)
            return [.meeting(.coming)]
        case .staying:
            guard let request = comeAskedAt else { return [.tell(book(.driverNothingToAnswer))] }
            comeAskedAt = nil
            toldOnDelivery[.comeAnswer(.staying)] = (.driverToldStaying, request)
            return [.answerCome(.staying)]
        case .across:
            acrossToldAt = time
            return [.meeting(.across), .tell(Self.crossingWords(meeting.passengerName, in: book))]
        case .rideWord:
            guard let word = meeting.rideWord else { return [.tell(book(.driverNoRideWord))] }
            return [.tell(book(.driverRideWordIs, ["word": .text(word), "name": .text(meeting.passengerName)]))]
        }
    }

    /// What the driver is told when the car is across the street from the passenger: only the
    /// driver crosses, where it is safe; the passenger is told to stay on the pavement.
    static func crossingWords(_ passenger: String, in book: Phrasebook = .english) -> String {
        book(.driverCrossing, ["name": .text(passenger)])
    }

    /// The passenger's name, for a sentence about them.
    private var passenger: [String: PhraseValue] { ["name": .text(meeting.passengerName)] }

    /// The device's tick, reported: played is a `device` answer; silence is `none` (the
    /// passenger is never told of a sound that did not play).
    private mutating func locatorPlayed(at time: Double, played: Bool, reason: String) -> [Action] {
        guard let asking, asking.instruction == .device else { return [] }
        self.asking = nil
        if played { return [.answerLocator(.device)] }
        return silenceLocator(at: time) + [.answerLocator(.none), .log(book(.driverLogTickNotPlayed, ["reason": .text(reason)])),
                                            .tell(book(.driverCannotTick, ["reason": .text(reason), "name": .text(meeting.passengerName)]))]
    }

    /// Stops the locator sound if it is (or may still be) playing.
    private mutating func silenceLocator(at time: Double?) -> [Action] {
        guard let until = locatorUntil else { return [] }
        locatorUntil = nil
        if let time, time >= until { return [] }
        return [.locator(.stop)]
    }

    private mutating func sighting(time: Double, unixTime: Double, rssi: Double, beacon: IBeacon) -> [Action] {
        guard let touchingNow = touch.sighting(time: time, unixTime: unixTime, rssi: rssi, beacon: beacon) else { return [] }
        guard touchingNow else {
            touching = false
            return passengerDistance(at: time)
        }
        let isNew = !touching
        touching = true
        lastTouchAt = time
        if isNew {
            confirming = false
            sentAt = nil
            // The passenger is here: the ticks have done their work and would only deafen.
            let quiet = silenceLocator(at: time)
            guard autoConfirm else { return quiet + [.say(.touchDetectedPressEnter)] }
            return quiet + [.say(.touchDetectedConfirming)] + submit(at: time, repeating: false)
        }
        if confirming, let sentAt, time - sentAt >= Self.resendInterval {
            return submit(at: time, repeating: true)
        }
        return []
    }

    private mutating func submit(at time: Double, repeating: Bool) -> [Action] {
        guard let observation = touch.observation, let lastTouchAt, time - lastTouchAt <= Self.freshness else {
            return [.say(.noRecentTouch)]
        }
        confirming = true
        sentAt = time
        return [.postProof(observation, repeating: repeating)]
    }

    private mutating func answered(_ answer: ProofAnswer, repeating: Bool) -> [Action] {
        switch answer {
        case .confirmed:
            return [.say(.proofAccepted)]
        case .awaitingCounterpart:
            return repeating ? [] : [.say(.proofAcceptedWaiting)]
        case .notSimultaneous:
            // The passenger's proof is of another moment; re-proving the ongoing touch (every
            // `resendInterval`) confirms once the passenger's device feels it too.
            return repeating ? [] : [.say(.proofAcceptedWaiting), .log(book(.driverLogProofOtherTime))]
        case .rejected(let reason):
            // A refused proof is not repeated; another Enter may try again while the touch is fresh.
            confirming = false
            return [.log(book(.driverLogProofRefused, ["reason": .text(reason)]))]
        }
    }

    /// The driver was told the ride service cannot be reached, and not yet that it is back.
    private var unreachableTold = false

    private mutating func rideUpdate(_ update: RideUpdate) -> [Action] {
        switch update {
        case .confirmed: outcome = .confirmed
        case .completed: outcome = .completed
        case .cancelled: outcome = .cancelled
        case .failed(let reason): outcome = .failed(reason)
        // Said once in his language, and the recovery once (issue 37, points 3 and 12): each retry is not news.
        case .reachable(false):
            guard !unreachableTold else { return [] }
            unreachableTold = true
            return [.tell(book(.driverServiceUnreachable))]
        case .reachable(true):
            guard unreachableTold else { return [] }
            unreachableTold = false
            return [.tell(book(.driverServiceBack))]
        // Needs the clocks: the runtime turns it into `.locatorRequested(time:unixTime:requestedAt:)`.
        case .arrived, .touchObserved, .locatorRequested, .locatorAnswered, .meeting, .comeRequested, .comeAnswered: return []
        }
        return silenceLocator(at: nil) + (outcome.map { [.finished($0)] } ?? [])
    }
}

extension DriverCore.Posted {
    /// The post as the ride's events name it (`come_answered`, `driver_coming`), for logs.
    public var wireName: String {
        switch self {
        case .locatorAnswer(let sound): RideEventKind.locatorAnswered.rawValue + " " + sound.rawValue
        case .comeAnswer(let answer): answer.eventKind.rawValue + " " + answer.rawValue
        case .meeting(let move): move.eventKind.rawValue
        }
    }
}

/// What the driver's device says aloud (printed for a screen reader by the CLI).
public enum DriverPhrase: String, Sendable, CaseIterable {
    /// A touch was felt; the driver confirms it with Enter.
    case touchDetectedPressEnter = "Touch detected. Press Enter to confirm the ride."
    /// A touch was felt and is being proved (auto-confirm).
    case touchDetectedConfirming = "Touch detected. Confirming."
    /// Enter, but no touch fresh enough to prove (`freshness`).
    case noRecentTouch = "No touch in the last few seconds. Touch the devices together again."
    /// The proof confirmed the ride.
    case proofAccepted = "Touch proof accepted."
    /// The proof was taken; the passenger's is awaited (mutual policy).
    case proofAcceptedWaiting = "Touch proof accepted. Waiting for the passenger's."
    /// Why the device starts ticking, and what makes the ticks heard outside a closed car.
    case passengerLookingForCar = "Your passenger is looking for the car: open the window, or step out to the kerb with the device."

    /// The phrase in `book`'s language (the raw value is the English).
    public func text(in book: Phrasebook) -> String {
        switch self {
        case .touchDetectedPressEnter: book(.driverTouchPressEnter)
        case .touchDetectedConfirming: book(.driverTouchConfirming)
        case .noRecentTouch: book(.driverNoRecentTouch)
        case .proofAccepted: book(.driverProofAccepted)
        case .proofAcceptedWaiting: book(.driverProofAcceptedWaiting)
        case .passengerLookingForCar: book(.driverPassengerLookingForCar)
        }
    }
}
