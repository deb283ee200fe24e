import Foundation
import RideBeaconTesting
import RideStore

/// The clients' tests use RideBeaconTesting's `World` (one account of each role, the real
/// server on a loopback port through `withServer`), on SQLite.
typealias ServerWorld = World

extension World {
    static func make() async throws -> World { try await make(.sqlite) }

    func rideRequestCount(passengerID: String) async throws -> Int {
        try await store.rideRequests(passengerID: passengerID).count
    }
}
