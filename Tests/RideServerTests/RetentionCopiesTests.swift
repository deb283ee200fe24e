import Foundation
import HummingbirdTesting
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// Retention erases a field everywhere it was copied (issue 13, item 2): stored results of
/// keyed writes, cancel reasons in events, the passenger's name, and the ride key.
@Suite("Retention covers every copy", .timeLimit(.minutes(2)))
struct RetentionCopiesTests {
    static let elsewhere = #"{"passengerName":"Ana","pickup":"Elsewhere 9","dropoff":"Harbour"}"#

    @Test(arguments: StoreKind.available)
    func aReplayAfterThePurgeReturnsNothingOfTheOldPlace(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let created = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest,
                                                headers: ["Idempotency-Key": "req-1"])
            #expect(created.status == .created || created.status == .ok)
            let accepted = try await client.call(.post, "/v1/ride-requests/\(created.id)/accept", as: world.driver, headers: ["Idempotency-Key": "acc-1"])
            let rideID = try #require(accepted.string("id"))
            #expect(accepted.string("key") != nil)
            let cancel = try await client.call(.post, "/v1/rides/\(rideID)/cancel", as: world.driver,
                                               json: #"{"reason":"nobody at Main St 1"}"#, headers: ["Idempotency-Key": "can-1"])
            #expect(cancel.status == .ok)
            // Before the purge a replay returns the stored first result, old place and all.
            let early = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Self.elsewhere, headers: ["Idempotency-Key": "req-1"])
            #expect(early.string("pickup") == "Main St 1")

            #expect(try await world.store.purgeLocations(finishedBefore: Date().addingTimeInterval(60)) == 1)

            let replayed = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Self.elsewhere, headers: ["Idempotency-Key": "req-1"])
            #expect(!replayed.text.contains("Main St") && !replayed.text.contains("guide dog"))
            #expect(replayed.string("pickup") == "Elsewhere 9", "the key was forgotten, so this is a new request")
            let acceptAgain = try await client.call(.post, "/v1/ride-requests/\(created.id)/accept", as: world.driver, headers: ["Idempotency-Key": "acc-1"])
            #expect(acceptAgain.string("key") == nil && !acceptAgain.text.contains("Main St"))
            let cancelAgain = try await client.call(.post, "/v1/rides/\(rideID)/cancel", as: world.driver, json: #"{"reason":"x"}"#,
                                                    headers: ["Idempotency-Key": "can-1"])
            #expect(!cancelAgain.text.contains("Main St"))

            // The history stays but without the reason; the name and the key are gone too.
            let events = try await world.store.events(rideID: rideID, after: 0)
            #expect(events.map(\.state) == [.requested, .accepted, .cancelled] && events.allSatisfy { $0.detail == nil })
            #expect(try await world.store.rideRequest(id: created.id)?.passengerName == "")
            #expect(try await world.store.ride(id: rideID)?.key.isEmpty == true)
            let seen = try await client.call(.get, "/v1/rides/\(rideID)", as: world.passenger)
            #expect(seen.status == .ok && seen.string("key") == nil)
        }
    }

    /// The hourly job deletes idempotency results older than their retention (24 h default).
    @Test(arguments: StoreKind.available)
    func idempotencyResultsExpire(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let first = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest, headers: ["Idempotency-Key": "req-1"])
            // Withdrawn, so once the key is forgotten the passenger may ask again (one ride at a time).
            _ = try await world.store.cancelRideRequest(id: first.id, by: world.passenger.id, idempotency: nil)
        }
        // A one-second retention (24 h in production), the job running every 200 ms.
        try await world.app(configure: {
            $0.idempotencyRetention = IdempotencyRetention(age: .seconds(1))
            $0.locationRetention = LocationRetention(days: 30, checkInterval: .milliseconds(200))
        }).test(.router) { client in
            // Until the job has run a replay still returns the first result; afterwards it is new.
            let forgotten = try await eventually(timeout: .seconds(30)) {
                let replayed = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Self.elsewhere,
                                                     headers: ["Idempotency-Key": "req-1"])
                return replayed.string("pickup") == "Elsewhere 9"
            }
            #expect(forgotten)
        }
    }
}
