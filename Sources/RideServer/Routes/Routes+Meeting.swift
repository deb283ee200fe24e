import BeaconCore
import Foundation
import Hummingbird
import RideRules
import RideStore

/// The meeting at the kerb (issue 22), each an event on the ride's stream that changes no state
/// (except the ride word, which confirms):
/// - `POST /v1/rides/{id}/locator/answer` (the ride's driver): the sound made, or `none`;
///   `locator_answered`. Only after a `locator_requested`: the passenger hears of a sound only
///   once the driver said it was made.
/// - `POST /v1/rides/{id}/meeting` (the ride's driver: `coming`, `driver_coming`, or
///   `across`, `car_across`; the ride's passenger's guide: `across` only).
/// - `POST /v1/rides/{id}/guide` (the ride's passenger): `started` / `stopped`.
/// - `POST /v1/rides/{id}/ride-word` (the ride's passenger): the ride word; the right one
///   confirms an arrived ride with a `word` proof, recorded as weaker than a touch.
struct MeetingRoutes<Context: RideRequestContext>: Sendable {
    let store: (any RideLifecycleStore & KerbStore)
    let rides: RideLookup
    let now: @Sendable () -> Date
    /// Guide reports, meeting moves and locator answers per account (`RideEventLimits`).
    private let perAccount: RateLimiter

    init(store: (any RideLifecycleStore & KerbStore), rides: RideLookup, now: @escaping @Sendable () -> Date, perAccount: RateLimit = RideEventLimits.perAccount) {
        self.store = store
        self.rides = rides
        self.now = now
        self.perAccount = RateLimiter(perAccount, now: now)
    }

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.post("/rides/{id}/locator/answer", use: answerLocator)
        routes.post("/rides/{id}/meeting", use: meetingMove)
        routes.post("/rides/{id}/guide", use: guideReport)
        routes.post("/rides/{id}/ride-word", use: confirmByRideWord)
    }

    @Sendable func answerLocator(_ request: Request, context: Context) async throws -> EditedResponse<MeetingEvent> {
        let account = try context.caller(for: .answerLocator, to: "answer the passenger's locator request")
        let body = try await request.decodeStrict(LocatorAnswerBody.self, context: context)
        let ride = try await ownRide(context, account, for: .answerLocator)
        let sound = LocatorSoundName(rawValue: body.sound) ?? .none
        return try await note(RideNote(rideID: ride.id, kind: .locatorAnswered, actorID: account.id, at: now(), detail: sound.rawValue,
                                       requiresEarlier: .locatorRequested), context: context, doing: "answers locator requests")
    }

    @Sendable func meetingMove(_ request: Request, context: Context) async throws -> EditedResponse<MeetingEvent> {
        let account = try context.caller(for: .sayAcross, to: "say how the ride's people meet")
        let body = try await request.decodeStrict(MeetingBody.self, context: context)
        let move = MeetingMove(rawValue: body.move) ?? .coming
        let act: RideAct = move == .across ? .sayAcross : .sayComing
        // The passenger's guide says only that the car is across; only the driver walks over.
        guard RideAccess.roles(for: act).contains(account.role) else {
            throw APIError.forbidden("only the ride's driver may say they are coming")
        }
        let ride = try await ownRide(context, account, for: act)
        return try await note(RideNote(rideID: ride.id, kind: move.eventKind, actorID: account.id, at: now(), detail: nil),
                              context: context, doing: "takes meeting moves")
    }

    @Sendable func guideReport(_ request: Request, context: Context) async throws -> EditedResponse<MeetingEvent> {
        let account = try context.caller(for: .reportGuide, to: "report the guide")
        let body = try await request.decodeStrict(GuideReportBody.self, context: context)
        let ride = try await ownRide(context, account, for: .reportGuide)
        let report = GuideReport(rawValue: body.report) ?? .started
        // The guide starts on arrival; it may stop after the confirmation too.
        let states: Set<RideState> = report == .started ? [.arrived] : [.arrived, .confirmed]
        return try await note(RideNote(rideID: ride.id, kind: report.eventKind, actorID: account.id, at: now(), detail: nil, states: states),
                              context: context, doing: "takes guide reports")
    }

    /// Checks in the order openapi.yaml documents: role, body, ride, the ride's own passenger,
    /// state (a ride confirmed by touch is never re-confirmed by a word), the ride's attempts
    /// (`RideWordPolicy.attemptsPerRide`, counted in the store, so on every server), then the word.
    @Sendable func confirmByRideWord(_ request: Request, context: Context) async throws -> Ride {
        let account = try context.caller(for: .confirmByRideWord, to: "confirm a ride by its ride word")
        let body = try await request.decodeStrict(RideWordBody.self, context: context)
        let ride = try await ownRide(context, account, for: .confirmByRideWord)
        guard ride.state == .arrived else { throw Self.wordWrongState(ride.state) }
        let attempt: Bool
        do { attempt = try await store.spendRideWordAttempt(rideID: ride.id, limit: RideWordPolicy.attemptsPerRide) } catch let error as StoreError {
            throw APIError(error)
        }
        guard attempt else {
            throw APIError(.conflict, code: .rideWordLocked, """
                this ride's word was tried \(RideWordPolicy.attemptsPerRide) times and no longer confirms it; hold the phones together \
                to confirm by touch, or ask the ride service to confirm the ride
                """)
        }
        guard RideWord.matches(body.word, rideKey: ride.key) else {
            context.logger.info("ride word refused", metadata: ["ride_id": .string(ride.id)])
            throw APIError(.unprocessableContent, code: .wrongRideWord,
                           "that is not this ride's ride word; ask the driver again (after \(RideWordPolicy.attemptsPerRide) wrong words it stops working)",
                           field: "word")
        }
        let confirmed: RideRecord
        do {
            confirmed = try await store.transition(rideID: ride.id, to: .confirmed, by: account.id, detail: RideWordPolicy.confirmationDetail,
                                                   idempotency: nil)
        } catch StoreError.illegalTransition(let from, _) {
            throw Self.wordWrongState(from)
        } catch let error as StoreError {
            throw APIError(error)
        }
        context.logger.info("ride confirmed by ride word", metadata: ["ride_id": .string(ride.id)])
        guard var detail = try await store.rideDetail(id: ride.id) else { throw APIError.notFound("ride \(ride.id)") }
        detail.ride = confirmed
        return rides.rideView(detail, showKey: true)
    }

    private static func wordWrongState(_ state: RideState) -> APIError {
        APIError(.conflict, code: .wrongState,
                 "the ride is \(state.rawValue); the ride word confirms only an arrived ride not yet confirmed by touch", state: state)
    }

    /// The ride named in the path, if the caller may do `act` to it (else 404, as for no ride).
    private func ownRide(_ context: Context, _ account: Account, for act: RideAct) async throws -> RideRecord {
        try await rides.ride(try context.parameters.require("id"), account, for: act).0
    }

    /// Takes one from the account's budget, then writes the note with its kind's limits
    /// (`RideEventLimits`); a refusal writes nothing.
    private func note(_ note: RideNote, context: Context, doing: String) async throws -> EditedResponse<MeetingEvent> {
        if let wait = perAccount.take(note.actorID) {
            throw APIError.rateLimited(retryAfter: wait, "too many guide reports, meeting moves and locator answers from this account")
        }
        let note = RideEventLimits.bound(note)
        let recording: RideNoteRecording
        do { recording = try await store.recordRideNote(note) } catch let error as StoreError { throw APIError(error) }
        if let refusal = RideEventLimits.refusal(recording, kind: note.kind) { throw refusal }
        switch recording {
        case .wrongState(let state):
            let states = note.states.map(\.rawValue).sorted().joined(separator: " or ")
            throw APIError(.conflict, code: .wrongState, "the ride is \(state.rawValue); it \(doing) only while \(states)", state: state)
        case .nothingToAnswer:
            throw APIError(.conflict, code: .nothingToAnswer, "the passenger has no locator request on this ride left unanswered")
        case .limitReached, .unchanged:
            throw APIError(.conflict, code: .noChange, "the ride takes no more such events")
        case .recorded(let event):
            context.logger.info("\(note.kind)", metadata: ["ride_id": .string(note.rideID), "detail": .string(note.detail ?? "")])
            return EditedResponse(status: .created, response: MeetingEvent(eventID: event.id, rideID: note.rideID, kind: event.kind,
                                                                            detail: event.detail, at: event.at))
        }
    }
}

/// The ride word's place among the ways to confirm a ride: weaker than a touch (SECURITY.md).
public enum RideWordPolicy {
    /// The `confirmed` event's detail, as the ride's history and the dispatcher board show it.
    public static let confirmationDetail = "ride word (word proof, weaker than touch)"
    /// Words a ride's passenger may try, right or wrong, before the ride word stops confirming
    /// that ride (`ride_word_locked`; RideRules' `RideLimits`, which says why 5).
    public static let attemptsPerRide = RideLimits.rideWordAttemptsPerRide
}
extension MeetingEvent: ResponseGenerator, ResponseEncodable {}
