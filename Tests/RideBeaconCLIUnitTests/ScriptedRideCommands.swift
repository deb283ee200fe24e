import BeaconCore
import Foundation
@testable import RideBeaconCLI
import RideClient
import RideSession
import Synchronization

/// The ride service as the kerb's commands see it (`RideCommandService`), scripted: rides and
/// requests a test sets, a live event stream it feeds (each subscriber gets what was sent
/// before, then what follows, as the server replays history), and a record of what the flow
/// asked. The session half (touch proofs, locator answers, the ride's updates to the driver's
/// session) is `session`, InMemoryRideService's side in these tests.
final class ScriptedRideCommands: RideCommandService {
    struct State {
        var rides: [Ride] = []
        var requests: [RideRequest] = []
        var sent: [LiveUpdate] = []
        var subscribers: [AsyncThrowingStream<LiveUpdate, any Error>.Continuation] = []
        /// What the flow asked for.
        var created: [NewRideRequest] = []
        var locatorRequests: [String] = []
        /// Her requests that the driver come, and the service's answer to each.
        var comeRequests: [String] = []
        var comeAnswer = ComeRequestAnswer.asked
        /// Her come requests go to the session's own service (the sentence-truth harness), not `comeAnswer`.
        var forwardsComeRequests = false
        var arrivals: [String] = []
        var language: String?
        /// `arrive`'s own answer (the ride moved to arrived by default).
        var onArrive: (@Sendable (String) throws(RideClientError) -> Ride)?
        /// Called when the flow asks for a locator sound (the sentence-truth harness passes it on).
        var onRequestLocator: (@Sendable (String) async -> Void)?
    }

    let state = Mutex(State())
    let session: any RideService

    init(session: any RideService, rides: [Ride] = [], requests: [RideRequest] = [], language: String? = nil) {
        self.session = session
        state.withLock {
            $0.rides = rides
            $0.requests = requests
            $0.language = language
        }
    }

    var created: [NewRideRequest] { state.withLock { $0.created } }
    var locatorRequests: [String] { state.withLock { $0.locatorRequests } }
    var comeRequests: [String] { state.withLock { $0.comeRequests } }

    /// What the service answers her next come requests.
    func answerComeRequests(_ answer: ComeRequestAnswer) { state.withLock { $0.comeAnswer = answer } }
    var arrivals: [String] { state.withLock { $0.arrivals } }

    /// Sends `update` to every stream open now and to those opened later.
    func send(_ update: LiveUpdate) {
        let subscribers = state.withLock { state in
            state.sent.append(update)
            return state.subscribers
        }
        for subscriber in subscribers { subscriber.yield(update) }
    }

    func setRequests(_ requests: [RideRequest]) { state.withLock { $0.requests = requests } }

    // MARK: RideCommandService

    func ride(_ rideID: String) async throws(RideClientError) -> Ride {
        guard let ride = state.withLock({ $0.rides.first { $0.id == rideID || $0.code == rideID } }) else {
            throw .rejected(APIProblem(status: 404, code: APIErrorCode(rawValue: "not_found"), message: "ride \(rideID) not found"))
        }
        return ride
    }

    func allRides() async throws(RideClientError) -> [Ride] { state.withLock { $0.rides } }
    func allRideRequests() async throws(RideClientError) -> [RideRequest] { state.withLock { $0.requests } }

    func createRideRequest(_ request: NewRideRequest, idempotencyKey: IdempotencyKey) async throws(RideClientError) -> RideRequest {
        state.withLock { state in
            state.created.append(request)
            let made = RideRequest(id: "request-\(state.created.count + 1)", passengerID: "ana", passengerName: request.passengerName,
                                   pickup: request.pickup, dropoff: request.dropoff, accessibilityNotes: request.accessibilityNotes,
                                   status: .open, createdAt: Date(), rideID: nil, code: "K7RX")
            state.requests.append(made)
            return made
        }
    }

    func cancelRide(_ rideID: String, reason: String?, idempotencyKey: IdempotencyKey) async throws(RideClientError) -> Ride {
        try await ride(rideID)
    }

    func arrive(_ rideID: String, idempotencyKey: IdempotencyKey) async throws(RideClientError) -> Ride {
        let answer = state.withLock { state in
            state.arrivals.append(rideID)
            return state.onArrive
        }
        if let answer { return try answer(rideID) }
        var ride = try await ride(rideID)
        ride.state = .arrived
        return ride
    }

    func onArrive(_ answer: @escaping @Sendable (String) throws(RideClientError) -> Ride) { state.withLock { $0.onArrive = answer } }

    func requestLocator(_ rideID: String) async throws(RideClientError) -> LocatorRequest {
        let hook = state.withLock { state in
            state.locatorRequests.append(rideID)
            return state.onRequestLocator
        }
        await hook?(rideID)
        return LocatorRequest(eventID: 1, rideID: rideID, requestedAt: Date(), soundSeconds: 10, nextAllowedAt: Date().addingTimeInterval(30))
    }

    func accountLanguage() async throws(RideClientError) -> String? { state.withLock { $0.language } }

    func rideEvents(_ rideID: String, after: Int64?) -> AsyncThrowingStream<LiveUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LiveUpdate, any Error>.makeStream()
        let sent = state.withLock { state in
            state.subscribers.append(continuation)
            return state.sent
        }
        for update in sent { continuation.yield(update) }
        return stream
    }

    // MARK: RideService: the session's own service

    func submitProof(_ observation: TouchObservation, rideID: String) async -> ProofAnswer { await session.submitProof(observation, rideID: rideID) }
    func rideUpdates(_ rideID: String) -> AsyncStream<RideUpdate> { session.rideUpdates(rideID) }
    func requestLocator(rideID: String) async -> LocatorAnswer { await session.requestLocator(rideID: rideID) }
    func answerLocator(rideID: String, sound: LocatorSoundName) async -> String? { await session.answerLocator(rideID: rideID, sound: sound) }
    func meetingMove(rideID: String, _ move: MeetingMove) async -> String? { await session.meetingMove(rideID: rideID, move) }
    func reportGuide(rideID: String, _ report: GuideReport) async -> String? { await session.reportGuide(rideID: rideID, report) }
    func confirmByRideWord(rideID: String, word: String) async -> ProofAnswer { await session.confirmByRideWord(rideID: rideID, word: word) }
    func askToCome(rideID: String) async -> ComeRequestAnswer {
        let (answer, forwards) = state.withLock { state in
            state.comeRequests.append(rideID)
            return (state.comeAnswer, state.forwardsComeRequests)
        }
        return forwards ? await session.askToCome(rideID: rideID) : answer
    }
    func answerCome(rideID: String, _ answer: ComeAnswer) async -> String? { await session.answerCome(rideID: rideID, answer) }
}

/// The rides and events the tests script: Ana's ride with Ben, in the blue Prius.
enum Script {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let rideKey = [UInt8](repeating: 7, count: RotatingIdentity.keyLength)

    static func ride(_ state: RideState, id: String = "ride-1", code: String = "K7RX") -> Ride {
        var ride = Ride(id: id, requestID: "request-1", passengerID: "ana", driverID: "ben", passenger: RideParty(name: "Ana"),
                        driver: RideParty(name: "Ben", vehicle: "blue Toyota Prius"), state: state, createdAt: start,
                        stateChangedAt: start, key: Data(rideKey).base64EncodedString(), identityPeriodSeconds: 60, code: code)
        ride.pickup = "Main St 1"
        ride.dropoff = "Station"
        return ride
    }

    static func request(_ status: RideRequestStatus, cancellation: RideCancellation? = nil) -> RideRequest {
        var request = RideRequest(id: "request-1", passengerID: "ana", passengerName: "Ana", pickup: "Main St 1", dropoff: "Station",
                                  accessibilityNotes: "guide dog", status: status, createdAt: start, rideID: nil, code: "Q3PL")
        request.cancellation = cancellation
        return request
    }

    /// The ride's `sequence`th event, `seconds` after the ride's last change.
    static func event(_ state: RideState, kind: RideEventKind = .stateChanged, by actor: String = "ben", detail: String? = nil,
                      sequence: Int, seconds: Double) -> LiveUpdate {
        .event(RideEvent(id: Int64(100 + sequence), requestID: "request-1", rideID: "ride-1", sequence: sequence, kind: kind,
                         state: state, actorID: actor, at: start.addingTimeInterval(seconds), detail: detail))
    }
}
