import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Who may see and do what. 401 without a valid token; 403 for a role that may never do it;
/// 404 for someone else's ride, exactly like a ride that does not exist.
@Suite("Authorization")
struct AuthorizationTests {
    @Test(arguments: StoreKind.available)
    func unauthenticatedAndRevokedTokensAre401(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        // The server's clock, stepped by hand: a token's account is reused for a second.
        let clock = SteppedClock(Date())
        try await world.app(configure: { $0.now = clock.reading }).test(.router) { client in
            let none = try await client.call(.get, "/v1/rides", as: nil)
            #expect(none.status == .unauthorized && none.errorCode == "unauthenticated")
            #expect(none.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)

            let forged = Member(account: world.passenger.account, token: "rb_" + String(repeating: "A", count: 43))
            #expect(try await client.call(.get, "/v1/rides", as: forged).status == .unauthorized)
            let malformed = Member(account: world.passenger.account, token: "not-a-token")
            #expect(try await client.call(.get, "/v1/rides", as: malformed).errorMessage == "malformed token")
            let basic = try await client.call(.get, "/v1/rides", as: nil, headers: ["Authorization": "Basic YTpi"])
            #expect(basic.status == .unauthorized)

            // Revoked through the server: refused at once, although it was just used.
            #expect(try await client.call(.get, "/v1/rides", as: world.driver).status == .ok)
            #expect(try await client.call(.post, "/v1/accounts/\(world.driver.id)/revoke-tokens", as: world.admin).status == .ok)
            #expect(try await client.call(.get, "/v1/rides", as: world.driver).status == .unauthorized)

            // Revoked in the database by other means (the admin CLI, another SQLite process):
            // refused once the second of reuse has passed.
            #expect(try await client.call(.get, "/v1/rides", as: world.passenger).status == .ok)
            _ = try await world.store.revokeTokens(accountID: world.passenger.id)
            clock.advance(1.01)
            let revoked = try await client.call(.get, "/v1/rides", as: world.passenger)
            #expect(revoked.status == .unauthorized && revoked.errorMessage == "unknown, revoked or expired token")
            // Writes are refused too, and nothing is written.
            #expect(try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest).status == .unauthorized)
        }
        #expect(try await world.store.rideRequests(passengerID: world.passenger.id).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func ridesAreVisibleOnlyToTheirPeople(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            let path = "/v1/rides/\(ride.id)"
            // Outsiders get the same 404 as for a ride that does not exist.
            let strangerPassenger = try await client.call(.get, path, as: world.otherPassenger)
            let strangerDriver = try await client.call(.get, path, as: world.otherDriver)
            let missing = try await client.call(.get, "/v1/rides/does-not-exist", as: world.otherPassenger)
            #expect(strangerPassenger.status == .notFound && strangerDriver.status == .notFound)
            #expect(strangerPassenger.errorCode == missing.errorCode)
            #expect(try await client.call(.post, "\(path)/cancel", as: world.otherPassenger).status == .notFound)
            #expect(try await client.call(.post, "\(path)/arrive", as: world.otherDriver).status == .notFound)
            #expect(try await client.call(.get, "\(path)/events", as: world.otherPassenger).status == .notFound)

            // Wrong role for the action: 403, whether or not it is their ride.
            let passengerArrives = try await client.call(.post, "\(path)/arrive", as: world.passenger)
            #expect(passengerArrives.status == .forbidden && passengerArrives.errorCode == "forbidden")
            #expect(try await client.call(.post, "\(path)/complete", as: world.dispatcher).status == .forbidden)
            #expect(try await client.call(.get, path, as: world.admin).status == .forbidden)
            #expect(try await client.call(.post, "/v1/ride-requests", as: world.driver, json: Bodies.rideRequest).status == .forbidden)
            #expect(try await client.call(.post, "/v1/ride-requests/\(ride.requestID)/accept", as: world.passenger).status == .forbidden)
            #expect(try await client.call(.get, "/v1/accounts", as: world.dispatcher).status == .forbidden)
            #expect(try await client.call(.get, "/v1/events", as: world.driver).status == .forbidden)
            #expect(try await client.call(.get, "/v1/rides", as: world.admin).status == .forbidden)

            // Drivers list only rides they accepted, never everyone's.
            let otherDriversRides = try await client.call(.get, "/v1/rides", as: world.otherDriver)
            #expect((otherDriversRides.json["rides"] as? [Any])?.isEmpty == true)
            let driversRides = try await client.call(.get, "/v1/rides", as: world.driver)
            #expect((driversRides.json["rides"] as? [[String: Any]])?.map { $0["id"] as? String } == [ride.id])

            // Passengers cannot page from someone else's ride either.
            let sneaky = try await client.call(.get, "/v1/rides?after=\(ride.id)", as: world.otherPassenger)
            #expect(sneaky.status == .badRequest && sneaky.errorField == "after")
        }
    }

    @Test(arguments: StoreKind.available)
    func rideKeyGoesOnlyToDriverAndPassenger(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        let expected = ride.key.base64EncodedString()
        try await world.app().test(.router) { client in
            #expect(try await client.call(.get, "/v1/rides/\(ride.id)", as: world.driver).string("key") == expected)
            #expect(try await client.call(.get, "/v1/rides/\(ride.id)", as: world.passenger).string("key") == expected)
            #expect(try await client.call(.get, "/v1/rides", as: world.passenger).text.contains(expected))

            // Nothing a dispatcher can read contains the key.
            let single = try await client.call(.get, "/v1/rides/\(ride.id)", as: world.dispatcher)
            let list = try await client.call(.get, "/v1/rides", as: world.dispatcher)
            let cancelled = try await client.call(.post, "/v1/rides/\(ride.id)/cancel", as: world.dispatcher, json: #"{"reason":"passenger called"}"#)
            for response in [single, list, cancelled] {
                #expect(response.status == .ok)
                #expect(!response.text.contains(expected) && !response.text.contains("\"key\""))
            }
        }
    }
}
