import Foundation
import HummingbirdTesting
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// The server's periodic purge: finished rides lose pickup, drop-off and notes once the
/// retention has passed, by the server's clock; rides still under way keep theirs.
@Suite("Location retention", .timeLimit(.minutes(2)))
struct RetentionTests {
    @Test(arguments: StoreKind.available)
    func serverPurgesFinishedRidesAfterTheRetention(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let active = try await world.arrivedRide()
        let cancelled = try await world.arrivedRide()
        _ = try await world.store.transition(rideID: cancelled.id, to: .cancelled, by: world.dispatcher.id, detail: nil, idempotency: nil)
        // Three days on, with a two-day retention.
        let clock = SteppedClock(Date().addingTimeInterval(3 * 86_400))
        try await world.app(configure: {
            $0.now = clock.reading
            $0.locationRetention = LocationRetention(days: 2, checkInterval: .milliseconds(100))
        }).test(.router) { client in
            #expect(try await eventually { try await world.store.rideRequest(id: cancelled.requestID)?.pickup == "" })
            let seen = try await client.call(.get, "/v1/rides/\(cancelled.id)", as: world.passenger)
            #expect(seen.status == .ok && seen.string("state") == "cancelled", "the ride itself stays")
        }
        #expect(try await world.store.rideRequest(id: active.requestID)?.pickup == "Main St 1")
    }
}
