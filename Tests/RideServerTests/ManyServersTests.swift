import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Two servers on one PostgreSQL database, each with its own connection pool and port, and
/// nothing in front of them. (Events crossing between them: OperationsTests'
/// eventsCrossServersThroughListenNotify; the same with real `serve` processes and the database
/// crashed under them: scripts/reliability/durability.py.)
@Suite("Many servers on one database", .timeLimit(.minutes(2)))
struct ManyServersTests {
    /// Drivers split over both servers accept the same requests at the same moment: each
    /// request gets exactly one ride, and both servers agree on who won.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func racingAcceptsThroughTwoServersHaveOneWinner() async throws {
        let world = try await World.make(.postgres)
        let otherStore = try await StoreLocation.open(world.location, operationTimeout: StoreKind.testOperationTimeout)
        var drivers: [Member] = []
        for i in 0..<6 { drivers.append(try await world.newDriver("Racer \(i)")) }
        var requests: [RideRequestRecord] = []
        for _ in 0..<5 {
            requests.append(try await world.store.createRideRequest(
                NewRideRequest(passengerName: "Ana", pickup: "a", dropoff: "b"), passengerID: world.passenger.id, idempotency: nil))
        }
        let racers = drivers, contested = requests
        try await world.app().test(.live) { first in
            try await world.app(store: otherStore).test(.live) { second in
                for request in contested {
                    let outcomes = try await withThrowingTaskGroup(of: (status: Int, driver: String?, server: Int).self) { group in
                        for (n, driver) in racers.enumerated() {
                            group.addTask {
                                let response = n.isMultiple(of: 2)
                                    ? try await first.call(.post, "/v1/ride-requests/\(request.id)/accept", as: driver)
                                    : try await second.call(.post, "/v1/ride-requests/\(request.id)/accept", as: driver)
                                return (Int(response.status.code), response.string("driverId"), n % 2)
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    let winners = outcomes.filter { $0.status == 200 }
                    #expect(winners.count == 1)
                    #expect(outcomes.filter { $0.status == 409 }.count == racers.count - 1)
                    let winner = try #require(winners.first?.driver)
                    // Whichever server the winner used, the other one shows the same ride.
                    let rideID = try #require(try await world.store.rideRequest(id: request.id)?.rideID)
                    let viaFirst = try await first.call(.get, "/v1/rides/\(rideID)", as: world.dispatcher)
                    let viaSecond = try await second.call(.get, "/v1/rides/\(rideID)", as: world.dispatcher)
                    #expect(viaFirst.string("driverId") == winner && viaSecond.string("driverId") == winner)
                    #expect(viaFirst.string("state") == "accepted" && viaSecond.string("state") == "accepted")
                }
            }
        }
        let rides = try await world.store.rides(RideFilter(scope: .active))
        #expect(rides.count == contested.count)
        #expect(Set(rides.map(\.requestID)) == Set(contested.map(\.id)))
        await otherStore.close()
    }
}
