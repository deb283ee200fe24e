import APIBodies
import Foundation
import Hummingbird
import RideRules
import RideStore

/// The passenger asks the driver to come to her (issue 37, point 2), each step an event on the
/// ride's stream that changes no state, so her device says "Ben is coming to you" only once
/// his device said so:
/// - `POST /v1/rides/{id}/come` (the ride's passenger, while arrived): `come_requested`. At
///   most one per `RideLimits.comeRequestInterval` (429 with Retry-After) and
///   `RideLimits.comeRequestsPerRide` per ride (409 `ride_event_limit`, counted in the store's
///   write transaction, so on every server).
/// - `POST /v1/rides/{id}/come/answer` (the ride's driver's device): `received` (the device has
///   it and told him) as `come_received`, then `coming` or `staying` as `come_answered`; each
///   only after a request, one of each per request (409 `nothing_to_answer`).
struct ComeRoutes<Context: RideRequestContext>: Sendable {
    let store: (any KerbStore & RideHistoryStore)
    let rides: RideLookup
    let now: @Sendable () -> Date
    /// Answers per account, with the meeting's other posts' rate (`RideEventLimits.perAccount`).
    private let perAccount: RateLimiter

    init(store: (any KerbStore & RideHistoryStore), rides: RideLookup, now: @escaping @Sendable () -> Date,
         perAccount: RateLimit = RideEventLimits.perAccount) {
        self.store = store
        self.rides = rides
        self.now = now
        self.perAccount = RateLimiter(perAccount, now: now)
    }

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.post("/rides/{id}/come", use: askToCome)
        routes.post("/rides/{id}/come/answer", use: answerCome)
    }

    /// Checks in the order openapi.yaml documents: role, body, ride, the ride's own passenger,
    /// how recently the last request was made, then (in the store) state and the ride's cap.
    /// The interval is read before the write: two requests racing on two servers may both pass
    /// it, and the store's cap still bounds them.
    @Sendable func askToCome(_ request: Request, context: Context) async throws -> EditedResponse<MeetingEvent> {
        let account = try context.caller(for: .askToCome, to: "ask the driver to come to you")
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let ride = try await rides.ride(try context.parameters.require("id"), account, for: .askToCome).0
        let now = now()
        let last = try await storeCall { try await store.latestEvent(rideID: ride.id, kinds: [.comeRequested]) }
        if let wait = RideLimits.comeRetryAfter(last: last?.at.timeIntervalSince1970, now: now.timeIntervalSince1970) {
            throw APIError.rateLimited(retryAfter: max(1, Int(wait.rounded(.up))),
                                       "the driver was asked to come less than \(Int(RideLimits.comeRequestInterval)) s ago; wait for the answer")
        }
        var note = RideNote(rideID: ride.id, kind: .comeRequested, actorID: account.id, at: now, detail: nil)
        note.perRideLimit = RideLimits.comeRequestsPerRide
        return try await record(note, context: context, doing: "takes come requests")
    }

    @Sendable func answerCome(_ request: Request, context: Context) async throws -> EditedResponse<MeetingEvent> {
        let account = try context.caller(for: .answerCome, to: "answer the passenger's come request")
        let body = try await request.decodeStrict(ComeAnswerBody.self, context: context)
        let ride = try await rides.ride(try context.parameters.require("id"), account, for: .answerCome).0
        if let wait = perAccount.take(account.id) {
            throw APIError.rateLimited(retryAfter: wait, "too many answers from this account")
        }
        let answer = ComeAnswer(rawValue: body.answer) ?? .received
        var note = RideNote(rideID: ride.id, kind: answer.eventKind, actorID: account.id, at: now(),
                            detail: answer == .received ? nil : answer.rawValue, requiresEarlier: .comeRequested)
        // One `received` and one answer per request: the store counts them against the requests.
        note.answersOnePerRequest = true
        return try await record(note, context: context, doing: "takes answers to come requests")
    }

    private func storeCall<T>(_ call: () async throws -> T) async throws -> T {
        do { return try await call() } catch let error as StoreError { throw APIError(error) }
    }

    private func record(_ note: RideNote, context: Context, doing: String) async throws -> EditedResponse<MeetingEvent> {
        let recording = try await storeCall { try await store.recordRideNote(note) }
        switch recording {
        case .wrongState(let state):
            throw APIError(.conflict, code: .wrongState, "the ride is \(state.rawValue); it \(doing) only while arrived", state: state)
        case .nothingToAnswer:
            throw APIError(.conflict, code: .nothingToAnswer, "the passenger has no come request on this ride left with this answer to give")
        case .limitReached(let limit):
            throw APIError(.conflict, code: .rideEventLimit, "this ride already has \(limit) \(note.kind.rawValue) events; it takes no more")
        case .unchanged:
            throw APIError(.conflict, code: .noChange, "the ride takes no more such events")
        case .recorded(let event):
            context.logger.info("\(note.kind)", metadata: ["ride_id": .string(note.rideID), "detail": .string(note.detail ?? "")])
            return EditedResponse(status: .created, response: MeetingEvent(eventID: event.id, rideID: note.rideID, kind: event.kind,
                                                                            detail: event.detail, at: event.at))
        }
    }
}
