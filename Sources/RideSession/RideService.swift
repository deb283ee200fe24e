import BeaconCore
import Foundation
@_exported import RideWire

/// The ride service as both sides of a ride use it at the kerb: the seam between the session
/// runtimes (`DriverSession`, the guide's `LiveGuide`) and whatever answers for the service.
///
/// RideSession knows only the wire (RideWire), never HTTP: RideClient's `RideServiceClient`
/// conforms over the /v1 API, `InMemoryRideService` (RideBeaconTesting) keeps the service's
/// rules in process for tests, and the simulator answers with its own policies. Every method
/// answers in plain values rather than throwing, so a core can react to a refusal like any
/// other input.
///
/// ```swift
/// let service: any RideService = try RideServiceClient(server: "https://rides.example", token: token)
/// switch await service.submitProof(observation, rideID: rideID) {
/// case .confirmed: print("ride confirmed")
/// case .rejected(let reason): print("not accepted: \(reason)")
/// default: break
/// }
/// ```
public protocol RideService: Sendable {
    /// Posts this side's touch proof for the ride (sent as RideWire's `TouchProof(observation)`).
    func submitProof(_ observation: TouchObservation, rideID: String) async -> ProofAnswer
    /// The ride's state changes and meeting events, reconnecting after breaks (`.reachable`),
    /// until the consumer stops or the stream fails for good (`.failed`).
    func rideUpdates(_ rideID: String) -> AsyncStream<RideUpdate>
    /// The passenger asks the car to sound its locator ticks (`LocatorRule`).
    func requestLocator(rideID: String) async -> LocatorAnswer
    /// The driver's answer to the passenger's locator request; nil when delivered, else why not.
    func answerLocator(rideID: String, sound: LocatorSoundName) async -> String?
    /// The driver's move at the kerb; nil when delivered, else why not.
    func meetingMove(rideID: String, _ move: MeetingMove) async -> String?
    /// The passenger's guide reporting in; nil when delivered, else why not.
    func reportGuide(rideID: String, _ report: GuideReport) async -> String?
    /// The passenger asks the driver to come to her at the pickup (issue 37, point 2).
    func askToCome(rideID: String) async -> ComeRequestAnswer
    /// The driver's device answers her come request (`received`, then `coming` or `staying`);
    /// nil when delivered, else why not.
    func answerCome(rideID: String, _ answer: ComeAnswer) async -> String?
    /// The passenger confirms the ride with the ride word the driver said.
    func confirmByRideWord(rideID: String, word: String) async -> ProofAnswer
    /// This side's latest satellite fix for the ride's other party (issue 35); nil when the
    /// service kept it, else why not. Conformers that keep no positions answer `.refused`
    /// (the default, Positions/PositionService.swift).
    func reportPosition(rideID: String, _ fix: GeoFix) async -> PositionRefusal?
    /// The ride's other party's latest fix (nil: none yet), or why it cannot be had.
    func otherPartyPosition(rideID: String) async -> Result<GeoFix?, PositionRefusal>
}

/// The ride service's answer to a touch proof (or to the ride word), as the cores take it.
public enum ProofAnswer: Sendable, Equatable {
    /// The ride is confirmed.
    case confirmed
    /// Accepted; the other side's proof is still missing (mutual policy).
    case awaitingCounterpart
    /// Accepted, but the other side's proof was observed at another time: the two devices did
    /// not feel the same touch (mutual policy). A later proof whose window meets it confirms.
    case notSimultaneous
    /// Rejected or not verified; the reason in words ("stale slot", "wrong identity").
    case rejected(String)
}

extension ProofAnswer {
    /// The answer an accepted proof's outcome (RideWire's `TouchProofResult.Outcome`) means.
    public init(_ outcome: TouchProofResult.Outcome) {
        switch outcome {
        case .confirmed: self = .confirmed
        case .awaitingCounterpart: self = .awaitingCounterpart
        case .touchNotSimultaneous: self = .notSimultaneous
        }
    }
}

/// The ride service's answer to the passenger's request for the car's locator sound.
public enum LocatorAnswer: Sendable, Equatable {
    /// The car has been asked; it ticks for this long unless the devices touch first, s.
    case ticking(seconds: Double)
    /// Asked too recently; the car is probably ticking already. Ask again after this long, s.
    case tooSoon(retryAfter: Double)
    /// Refused or not delivered; the reason in words.
    case refused(String)
}

/// What a side hears of its ride from the ride service while at the kerb.
public enum RideUpdate: Sendable, Equatable {
    /// The service became (un)reachable; the stream reconnects by itself.
    case reachable(Bool)
    /// The driver has arrived at the pickup.
    case arrived
    /// One side's touch proof was accepted without confirming the ride (mutual policy): when
    /// that side's device felt the touch, wall-clock seconds.
    case touchObserved(by: BeaconSide, from: Double, until: Double)
    /// The ride is confirmed: the right passenger met the right car.
    case confirmed
    /// The ride is over.
    case completed
    /// The ride was cancelled.
    case cancelled
    /// The passenger asked the car to sound its locator, at this wall-clock time (s since
    /// 1970): a stream replaying history brings old requests too, which have run out.
    case locatorRequested(unixTime: Double)
    /// The driver answered a locator request: the sound made (`none`: cannot now), at this
    /// wall-clock time (a replayed history brings old answers too).
    case locatorAnswered(LocatorSoundName, unixTime: Double)
    /// The driver is walking to the passenger (`coming`), or the car is across the street and
    /// the driver comes round (`across`), at this wall-clock time.
    case meeting(MeetingMove, unixTime: Double)
    /// The passenger asked the driver to come to her, at this wall-clock time (a replayed
    /// history brings old requests too).
    case comeRequested(unixTime: Double)
    /// The driver's device answered a come request: it has it (`received`), or his answer.
    case comeAnswered(ComeAnswer, unixTime: Double)
    /// The stream ended for good (refused, the ride is gone); the reason in words.
    case failed(String)
}
