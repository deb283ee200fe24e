import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

@Suite("Races and retries")
struct ConcurrencyTests {
    /// Several drivers accept one request at the same moment, over real connections.
    @Test(arguments: StoreKind.available)
    func racingAcceptsHaveExactlyOneWinner(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        var drivers: [Member] = []
        for i in 0..<8 { drivers.append(try await world.newDriver("Racer \(i)")) }
        let request = try await world.store.createRideRequest(
            NewRideRequest(passengerName: "Ana", pickup: "a", dropoff: "b"), passengerID: world.passenger.id, idempotency: nil)
        let racers = drivers
        let outcomes = try await world.app().test(.ahc(.http)) { client in
            try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for driver in racers {
                    group.addTask {
                        let response = try await client.call(.post, "/v1/ride-requests/\(request.id)/accept", as: driver)
                        return (Int(response.status.code), response.status == .ok ? response.string("driverId") : response.errorState)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(outcomes.filter { $0.0 == 200 }.count == 1)
        #expect(outcomes.filter { $0.0 == 409 }.count == 7)
        #expect(outcomes.filter { $0.0 == 409 }.allSatisfy { $0.1 == "accepted" })
        let winner = try #require(outcomes.first { $0.0 == 200 }?.1)
        let rides = try await world.store.rides(RideFilter(scope: .active))
        #expect(rides.count == 1 && rides.first?.driverID == winner)
    }

    @Test(arguments: StoreKind.available)
    func idempotencyKeyRetriesReturnTheFirstResponse(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.live) { client in
            let key = ["Idempotency-Key": "create-7f3a"]
            let first = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest, headers: key)
            let retry = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest, headers: key)
            #expect(first.status == .created && retry.status == .created)
            #expect(first.text == retry.text)
            #expect(try await world.store.rideRequests(passengerID: world.passenger.id).count == 1)

            // Accept and arrive retried: the same bodies, one history entry each.
            let accept = ["Idempotency-Key": "accept-1"]
            let accepted = try await client.call(.post, "/v1/ride-requests/\(first.id)/accept", as: world.driver, headers: accept)
            let acceptedAgain = try await client.call(.post, "/v1/ride-requests/\(first.id)/accept", as: world.driver, headers: accept)
            #expect(accepted.status == .ok && accepted.text == acceptedAgain.text)
            let arrive = ["Idempotency-Key": "arrive-1"]
            let arrived = try await client.call(.post, "/v1/rides/\(accepted.id)/arrive", as: world.driver, headers: arrive)
            let arrivedAgain = try await client.call(.post, "/v1/rides/\(accepted.id)/arrive", as: world.driver, headers: arrive)
            #expect(arrived.text == arrivedAgain.text)
            #expect(try await world.store.events(rideID: accepted.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])

            // The same key for a different operation is refused and changes nothing.
            let reused = try await client.call(.post, "/v1/rides/\(accepted.id)/cancel", as: world.driver, headers: arrive)
            #expect(reused.status == .unprocessableContent && reused.errorCode == "idempotency_key_reused")
            #expect(try await world.store.ride(id: accepted.id)?.state == .arrived)

            // Keys belong to accounts: another passenger's identical key is a new request.
            let other = try await client.call(.post, "/v1/ride-requests", as: world.otherPassenger, json: Bodies.rideRequest, headers: key)
            #expect(other.status == .created && other.id != first.id)

            // A token's secret is shown once, so a retried issue cannot repeat it.
            let tokenKey = ["Idempotency-Key": "token-1"]
            let issued = try await client.call(.post, "/v1/accounts/\(world.driver.id)/tokens", as: world.admin, headers: tokenKey)
            let reissued = try await client.call(.post, "/v1/accounts/\(world.driver.id)/tokens", as: world.admin, headers: tokenKey)
            #expect(issued.status == .created && reissued.status == .conflict && reissued.errorCode == "token_already_issued")
            #expect(!reissued.text.contains(issued.string("token") ?? "-"))

            let bad = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest,
                                            headers: ["Idempotency-Key": String(repeating: "k", count: 256)])
            #expect(bad.status == .badRequest && bad.errorField == "Idempotency-Key")
        }
    }
}
