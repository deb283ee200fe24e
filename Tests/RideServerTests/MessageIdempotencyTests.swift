import Foundation
import HummingbirdTesting
import RideServer
@testable import RideStore
import Testing
import RideBeaconTesting

/// `POST /v1/rides/{id}/messages` with an Idempotency-Key, as every other write: a retry with
/// the same key and words answers the first message (201, the same event) and the driver hears
/// it once; the key with other words is 422 and changes nothing; a replay does not count against
/// the account's message limit again.
@Suite("Messages to the driver with an Idempotency-Key", .timeLimit(.minutes(2)))
struct MessageIdempotencyTests {
    @Test(arguments: StoreKind.available)
    func aRetriedMessageIsSentOnceAndItsKeyServesNoOtherMessage(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let clock = SteppedClock()
        let ride = try await world.acceptedRide()
        @Sendable func messages() async throws -> [RideEvent] {
            try await world.store.events(rideID: ride.id, after: 0).filter { $0.kind == .passengerMessage }
        }
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.messagesPerAccount = .perMinute(3)
        }).test(.router) { client in
            let path = "/v1/rides/\(ride.id)/messages"
            let key = ["Idempotency-Key": "message-7f3a"]
            let first = try await client.call(.post, path, as: world.passenger, json: #"{"text":"By the main door"}"#, headers: key)
            let retry = try await client.call(.post, path, as: world.passenger, json: #"{"text":"By the main door"}"#, headers: key)
            #expect(first.status == .created && retry.status == .created)
            #expect(first.text == retry.text, "the first answer again, the same eventID")
            let sent = try await messages()
            #expect(sent.count == 1 && sent.first?.detail == "By the main door")
            #expect((first.json["eventId"] as? Int).map(Int64.init) == sent.first?.id)

            // The key with other words: refused, nothing written.
            let reused = try await client.call(.post, path, as: world.passenger, json: #"{"text":"At the side door"}"#, headers: key)
            #expect(reused.status == .unprocessableContent && reused.errorCode == "idempotency_key_reused")
            #expect(try await messages() == sent)

            // The limit is 3: the first message and the refused one took two, the replay gave
            // its back, so one more goes through; the next is 429.
            let second = try await client.call(.post, path, as: world.passenger, json: #"{"preset":"guide_dog"}"#,
                                               headers: ["Idempotency-Key": "message-2"])
            #expect(second.status == .created)
            let limited = try await client.call(.post, path, as: world.passenger, json: #"{"text":"Hello?"}"#,
                                                headers: ["Idempotency-Key": "message-3"])
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited")
            #expect(try await messages().count == 2)

            // A preset and its sentence typed out are two requests: the key answers only the first.
            clock.advance(60)
            let preset = ["Idempotency-Key": "message-preset"]
            #expect(try await client.call(.post, path, as: world.passenger, json: #"{"preset":"guide_dog"}"#, headers: preset).status == .created)
            let typed = try await client.call(.post, path, as: world.passenger, json: #"{"text":"I have a guide dog."}"#, headers: preset)
            #expect(typed.status == .unprocessableContent && typed.errorCode == "idempotency_key_reused")
            #expect(try await messages().count == 3)

            // Once the ride is over a retry still answers the first message; a new one is 409.
            try await world.cancelAsOperator(rideID: ride.id)
            let late = try await client.call(.post, path, as: world.passenger, json: #"{"text":"By the main door"}"#, headers: key)
            #expect(late.status == .created && late.text == first.text)
            let refused = try await client.call(.post, path, as: world.passenger, json: #"{"text":"Hello?"}"#,
                                                headers: ["Idempotency-Key": "message-3"])
            #expect(refused.status == .conflict && refused.errorCode == "wrong_state")
            #expect(try await messages().count == 3)
        }
    }

    /// Without a key a message is sent each time, as before.
    @Test func withoutAKeyEachCallIsAMessage() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            let path = "/v1/rides/\(ride.id)/messages"
            let first = try await client.call(.post, path, as: world.passenger, json: #"{"preset":"guide_dog"}"#)
            let second = try await client.call(.post, path, as: world.passenger, json: #"{"preset":"guide_dog"}"#)
            #expect(first.status == .created && second.status == .created && first.text != second.text)
            #expect(try await world.store.events(rideID: ride.id, after: 0).filter { $0.kind == .passengerMessage }.count == 2)
        }
    }
}
