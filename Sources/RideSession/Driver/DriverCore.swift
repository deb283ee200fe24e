import BeaconCore

/// The driver's side at the kerb as a pure state machine: hears the passenger's beacon, decides
/// when the devices touch, when to send (and re-send) the driver's touch proof, and when the ride
/// is over. It reads no clock and does no I/O: `DriverSession` feeds it in real time, the
/// simulator in virtual time.
public struct DriverCore: Sendable {
    public enum Outcome: Equatable, Sendable {
        case confirmed, completed, cancelled
        case failed(String)
    }

    public enum Input: Sendable {
        case sighting(time: Double, unixTime: Double, rssi: Double, beacon: IBeacon)
        /// The driver pressed Enter: prove the latest touch.
        case confirm(time: Double)
        /// The answer to a proof sent by `.postProof`.
        case proofAnswered(ProofAnswer, repeating: Bool)
        case ride(RideUpdate)
        /// The passenger asked for the locator sound at `requestedAt` (wall clock, s since 1970);
        /// `time` and `unixTime` are now.
        case locatorRequested(time: Double, unixTime: Double, requestedAt: Double)
    }

    /// The car's locator sound, played by the runtime.
    public enum LocatorSound: Equatable, Sendable {
        /// Tick once a second for this long, s (from now; a running sound restarts).
        case start(seconds: Double)
        case stop
    }

    public enum Action: Equatable, Sendable {
        case say(DriverPhrase)
        /// A line for the operator's log (stderr), not spoken.
        case log(String)
        /// Send this proof; `repeating` when it re-proves a touch already confirmed.
        case postProof(TouchObservation, repeating: Bool)
        case locator(LocatorSound)
        case finished(Outcome)
    }

    /// Proofs older than this are refused by the server (10 s); keep a margin for the trip.
    public static let freshness = 8.0
    /// Under the mutual policy the server pairs the two sides' proofs within 10 s of each other;
    /// re-proving this often while the devices still touch keeps one inside that window
    /// whenever the passenger confirms.
    public static let resendInterval = 5.0
    /// How long the locator sounds after a request (the server's `soundSeconds`), s.
    public static let locatorSeconds = 30.0

    public let autoConfirm: Bool
    private var touch: CounterpartTouch
    private var touching = false
    /// Monotonic time of the last touching advertisement.
    private var lastTouchAt: Double?
    /// Set once the driver confirmed this touch (Enter or auto-confirm); cleared by a refusal.
    private var confirming = false
    private var sentAt: Double?
    /// Monotonic time the locator sound runs out, while it plays.
    public private(set) var locatorUntil: Double?
    public private(set) var outcome: Outcome?

    public init(identity: RotatingIdentity, calibration: Calibration = Calibration(model: .default), autoConfirm: Bool) {
        self.autoConfirm = autoConfirm
        touch = CounterpartTouch(identity: identity, lookingFor: .passenger, calibration: calibration)
    }

    /// The observation a proof would carry now (nil before the first touch).
    public var observation: TouchObservation? { touch.observation }

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
        }
    }

    /// Sounds the locator for what is left of the request's 30 s: a stream that replays the
    /// ride's history brings requests that have run out, and a restarted command must not
    /// tick for them. Said once per run of the sound, so a repeated request does not talk
    /// over the ticks.
    private mutating func locatorRequested(time: Double, unixTime: Double, requestedAt: Double) -> [Action] {
        let remaining = Self.locatorSeconds - max(0, unixTime - requestedAt)
        guard remaining >= 1, !touching else { return [] }
        let sounding = locatorUntil.map { time < $0 } ?? false
        locatorUntil = time + remaining
        let start = Action.locator(.start(seconds: remaining))
        return sounding ? [start] : [.say(.passengerLookingForCar), start]
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
            return []
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
            return repeating ? [] : [.say(.proofAcceptedWaiting), .log("the passenger's touch proof was observed at another time")]
        case .rejected(let reason):
            // A refused proof is not repeated; another Enter may try again while the touch is fresh.
            confirming = false
            return [.log("touch proof not accepted: \(reason)")]
        }
    }

    private mutating func rideUpdate(_ update: RideUpdate) -> [Action] {
        switch update {
        case .confirmed: outcome = .confirmed
        case .completed: outcome = .completed
        case .cancelled: outcome = .cancelled
        case .failed(let reason): outcome = .failed(reason)
        case .reachable(false): return [.log("Cannot reach the ride service, retrying")]
        // Needs the clocks: the runtime turns it into `.locatorRequested(time:unixTime:requestedAt:)`.
        case .reachable(true), .arrived, .touchObserved, .locatorRequested: return []
        }
        return silenceLocator(at: nil) + (outcome.map { [.finished($0)] } ?? [])
    }
}

/// What the driver's device says aloud (printed for a screen reader by the CLI).
public enum DriverPhrase: String, Sendable, CaseIterable {
    case touchDetectedPressEnter = "Touch detected. Press Enter to confirm the ride."
    case touchDetectedConfirming = "Touch detected. Confirming."
    case noRecentTouch = "No touch in the last few seconds. Touch the devices together again."
    case proofAccepted = "Touch proof accepted."
    case proofAcceptedWaiting = "Touch proof accepted. Waiting for the passenger's."
    /// Why the device starts ticking, and what makes the ticks heard outside a closed car.
    case passengerLookingForCar = "Your passenger is looking for the car: open the window, or step out to the kerb with the device."
}
