import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

@Suite("Token expiry and paged request lists")
struct TokenExpiryAndPagingTests {
    @Test(arguments: StoreKind.available)
    func expiringTokensWorkUntilTheyExpire(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let issued = try await client.call(.post, "/v1/accounts/\(world.driver.id)/tokens", as: world.admin, json: #"{"expiresInDays":1}"#)
            #expect(issued.status == .created)
            let expires = try #require(issued.string("expiresAt").flatMap { try? Date($0, strategy: .iso8601) })
            #expect(abs(expires.timeIntervalSinceNow - 86_400) < 60)
            let fresh = Member(account: world.driver.account, token: try #require(issued.string("token")))
            #expect(try await client.call(.get, "/v1/rides", as: fresh).status == .ok)
            // No body: the policy's lifetime (issue 36, finding 8: every token expires), said in the answer.
            let byPolicy = try await client.call(.post, "/v1/accounts/\(world.driver.id)/tokens", as: world.admin)
            let policyEnd = try #require(byPolicy.string("expiresAt").flatMap { try? Date($0, strategy: .iso8601) }, "\(byPolicy.text)")
            #expect(byPolicy.status == .created && abs(policyEnd.timeIntervalSinceNow - Double(TokenExpiry.adminIssuedDays) * 86_400) < 60)

            let zero = try await client.call(.post, "/v1/accounts/\(world.driver.id)/tokens", as: world.admin, json: #"{"expiresInDays":0}"#)
            #expect(zero.status == .badRequest && zero.errorField == "expiresInDays")

            // An expired token is refused exactly like a revoked one.
            let secret = APITokenSecret()
            _ = try await world.store.addToken(accountID: world.passenger.id, secretHash: secret.hash, expiresAt: Date(timeIntervalSinceNow: -60))
            let expired = try await client.call(.get, "/v1/rides", as: Member(account: world.passenger.account, token: secret.text))
            #expect(expired.status == .unauthorized && expired.errorMessage == "unknown, revoked or expired token")
        }
    }

    @Test(arguments: StoreKind.available)
    func passengersPageThroughTheirRequests(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        var created: [String] = []
        for _ in 0..<5 {
            created.append(try await world.store.createRideRequest(
                NewRideRequest(passengerName: "Ana", pickup: "a", dropoff: "b"), passengerID: world.passenger.id, idempotency: nil).id)
        }
        // Listed oldest first; requests made in the same millisecond follow their random ids (the
        // page key), so the expected order is the store's own listing, holding exactly those made.
        let made = try await world.store.rideRequests(passengerID: world.passenger.id, limit: 10, after: nil).map(\.id)
        #expect(Set(made) == Set(created) && made.count == created.count)
        try await world.app().test(.router) { client in
            var seen: [String] = []
            var uri = "/v1/ride-requests?limit=2"
            for _ in 0..<5 {
                let page = try await client.call(.get, uri, as: world.passenger)
                seen += (page.json["rideRequests"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                guard let next = page.json["nextAfter"] as? String else {
                    #expect(page.json.keys.contains("nextAfter"))
                    break
                }
                uri = "/v1/ride-requests?limit=2&after=\(next)"
            }
            #expect(seen == made)
            // Another passenger's request is no anchor: paging reveals nothing about it.
            let foreign = try await client.call(.get, "/v1/ride-requests?after=\(made[0])", as: world.otherPassenger)
            #expect(foreign.status == .badRequest && foreign.errorField == "after")
            let drivers = try await client.call(.get, "/v1/ride-requests?limit=3&after=\(made[0])", as: world.driver)
            #expect((drivers.json["rideRequests"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == Array(made[1...3]))
        }
    }
}
