import Foundation
import Hummingbird
import RideRules
import RideStore

/// `POST /v1/rides/{id}/messages` (issue 25): the ride's passenger tells her driver something
/// once he accepted ("I'm at the main entrance", "I'm hard of hearing, please text", or her own
/// words on one line, at most 160 characters, with the rules of all free text). The message is
/// a `passenger_message` event on the ride's stream: the driver's device speaks and notifies it,
/// the dispatchers' board and stream show it. Nothing else changes.
struct MessageRoutes<Context: RideRequestContext>: Sendable {
    let store: any KerbStore
    let rides: RideLookup
    let limits: RateLimits
    let now: @Sendable () -> Date

    /// The states a message may be sent in: from acceptance until the meeting.
    static var states: Set<RideState> { [.accepted, .arrived] }

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.post("/rides/{id}/messages", use: send)
    }

    /// Checks in the order openapi.yaml documents: role, body, the ride's own passenger, the
    /// account's message limit, then (in the store, one transaction) the Idempotency-Key and
    /// state. A retry with the message's key answers the first message again (201, the same
    /// event) and writes nothing, whatever the ride's state now; the key with another message
    /// is 422 `idempotency_key_reused`. A replay gives back the message it took from the
    /// account's limit (the store says it is one only after the limit was checked), so retries
    /// of one message count once; a retry that finds the limit used up is 429 like any message.
    @Sendable func send(_ request: Request, context: Context) async throws -> EditedResponse<PassengerMessage> {
        let account = try context.caller(for: .sendMessage, to: "send the driver a message")
        let key = try request.idempotencyKey(account: account)
        let body = try await request.decodeStrict(PassengerMessageBody.self, context: context)
        let (ride, _) = try await rides.ride(try context.parameters.require("id"), account, for: .sendMessage)
        let preset = body.preset.flatMap(MessagePreset.init(rawValue:))
        let text: String
        if let preset {
            text = preset.sentence
        } else {
            text = try FreeText.clean(body.text ?? "", field: "text", maxLength: PassengerMessage.maxTextLength, multiline: false)
        }
        try limits.admitMessage(account: account.id)
        var note = RideEventLimits.bound(RideNote(rideID: ride.id, kind: .passengerMessage, actorID: account.id, at: now(), detail: text,
                                                  states: Self.states))
        // The answer names the preset: a preset and its sentence typed out are two requests.
        note.keyedRequest = preset.map { "preset=\($0.rawValue)" } ?? "text"
        let keyed: KeyedRideNoteRecording
        do { keyed = try await store.recordRideNote(note, idempotency: key) } catch let error as StoreError { throw APIError(error) }
        if keyed.isReplay { limits.refundMessage(account: account.id) }
        if let refusal = RideEventLimits.refusal(keyed.recording, kind: note.kind) { throw refusal }
        switch keyed.recording {
        case .wrongState(let state):
            throw APIError(.conflict, code: .wrongState,
                           "the ride is \(state.rawValue); messages reach the driver only while the ride is accepted or arrived",
                           state: state)
        case .nothingToAnswer, .limitReached, .unchanged:
            throw APIError(.conflict, code: .wrongState, "the ride cannot take messages now")
        case .recorded(let event):
            // The words stay out of the log: only that a message was sent, and whether a preset.
            context.logger.info(keyed.isReplay ? "passenger message replayed" : "passenger message",
                                metadata: ["ride_id": .string(ride.id), "preset": .string(preset?.rawValue ?? "-")])
            return EditedResponse(status: .created,
                                  response: PassengerMessage(eventID: event.id, rideID: ride.id, preset: preset, text: text, sentAt: event.at))
        }
    }
}

extension PassengerMessage: ResponseGenerator, ResponseEncodable {}
