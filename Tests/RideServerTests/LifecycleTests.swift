import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// A ride walked through its whole life over HTTP, each step by the role that takes it.
@Suite("Ride lifecycle over HTTP")
struct LifecycleTests {
    @Test(arguments: StoreKind.available)
    func requestAcceptArriveConfirmComplete(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            // Passenger asks for a ride.
            let created = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest)
            #expect(created.status == .created)
            #expect(created.string("status") == "open" && created.string("passengerId") == world.passenger.id)
            let requestID = created.id

            // Drivers see it, without the passenger's account id.
            let open = try await client.call(.get, "/v1/ride-requests", as: world.driver)
            let listed = try #require((open.json["rideRequests"] as? [[String: Any]])?.first)
            #expect(listed["id"] as? String == requestID && listed["passengerId"] == nil)
            #expect(listed["pickup"] as? String == "Main St 1" && listed["accessibilityNotes"] as? String == "guide dog")

            // A driver accepts and gets the ride with its key.
            let accepted = try await client.call(.post, "/v1/ride-requests/\(requestID)/accept", as: world.driver)
            #expect(accepted.status == .ok && accepted.string("state") == "accepted")
            let rideID = accepted.id
            let key = try #require(accepted.string("key"))
            #expect(Data(base64Encoded: key)?.count == 32)

            // The passenger sees the same ride and key; the request now points at it.
            let asPassenger = try await client.call(.get, "/v1/rides/\(rideID)", as: world.passenger)
            #expect(asPassenger.string("key") == key && asPassenger.string("driverId") == world.driver.id)
            // Names for the guide ("Your driver is Ben, blue Prius"), also in the accept answer.
            for answer in [accepted, asPassenger] {
                let driver = answer.json["driver"] as? [String: Any]
                #expect(driver?["name"] as? String == "Ben" && driver?["vehicle"] as? String == "blue Prius")
                // Issue 25: the car part by part too ("blue Prius" split on creation: a colour and a model).
                #expect(driver?["vehicleDetails"] as? [String: String] == ["colour": "blue", "model": "Prius"])
                #expect(answer.json["passenger"] as? [String: String] == ["name": "Ana"])
            }
            let mine = try await client.call(.get, "/v1/ride-requests", as: world.passenger)
            #expect((mine.json["rideRequests"] as? [[String: Any]])?.first?["rideId"] as? String == rideID)

            // The dispatcher sees it among active rides, without the key.
            let active = try await client.call(.get, "/v1/rides", as: world.dispatcher)
            let rides = try #require(active.json["rides"] as? [[String: Any]])
            #expect(rides.map { $0["id"] as? String } == [rideID] && rides[0]["key"] == nil)
            #expect((rides[0]["driver"] as? [String: Any])?["name"] as? String == "Ben")

            // Driver arrives; confirmation (touch proofs, later) is done in the store here.
            let arrived = try await client.call(.post, "/v1/rides/\(rideID)/arrive", as: world.driver)
            #expect(arrived.string("state") == "arrived" && (arrived.json["driver"] as? [String: Any])?["vehicle"] as? String == "blue Prius")
            _ = try await world.store.transition(rideID: rideID, to: .confirmed, by: world.passenger.id, detail: nil, idempotency: nil)
            let completed = try await client.call(.post, "/v1/rides/\(rideID)/complete", as: world.driver)
            #expect(completed.status == .ok && completed.string("state") == "completed")

            // Completed rides leave the dispatcher's list but stay in the participants' own.
            #expect((try await client.call(.get, "/v1/rides", as: world.dispatcher).json["rides"] as? [Any])?.isEmpty == true)
            let own = try await client.call(.get, "/v1/rides", as: world.passenger)
            #expect((own.json["rides"] as? [[String: Any]])?.first?["state"] as? String == "completed")
        }
        let history = try await world.store.events(after: 0, limit: 10).map(\.state)
        #expect(history == [.requested, .accepted, .arrived, .confirmed, .completed])
    }

    @Test(arguments: StoreKind.available)
    func cancellationsByEachRole(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            // Passenger withdraws a request before anyone accepts it.
            let request = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest)
            let withdrawn = try await client.call(.post, "/v1/ride-requests/\(request.id)/cancel", as: world.passenger)
            #expect(withdrawn.status == .ok && withdrawn.string("status") == "cancelled")
            let late = try await client.call(.post, "/v1/ride-requests/\(request.id)/accept", as: world.driver)
            #expect(late.status == .conflict && late.errorState == "cancelled")

            // After acceptance the request cannot be withdrawn; the ride is cancelled instead.
            let ride = try await world.acceptedRide()
            let tooLate = try await client.call(.post, "/v1/ride-requests/\(ride.requestID)/cancel", as: world.passenger)
            #expect(tooLate.status == .conflict && tooLate.errorState == "accepted")
            #expect(tooLate.errorMessage.contains(ride.id))

            let byPassenger = try await client.call(.post, "/v1/rides/\(ride.id)/cancel", as: world.passenger,
                                                    json: #"{"reason":"found another way"}"#)
            #expect(byPassenger.string("state") == "cancelled" && byPassenger.string("key") != nil)
            let again = try await client.call(.post, "/v1/rides/\(ride.id)/cancel", as: world.driver)
            #expect(again.status == .conflict && again.errorState == "cancelled")

            let second = try await world.acceptedRide()
            let byDriver = try await client.call(.post, "/v1/rides/\(second.id)/cancel", as: world.driver)
            #expect(byDriver.string("state") == "cancelled")

            // Dispatchers cancel any active ride, saying why, and still never see its key.
            let third = try await world.acceptedRide()
            let reasonless = try await client.call(.post, "/v1/rides/\(third.id)/cancel", as: world.dispatcher)
            #expect(reasonless.status == .badRequest && reasonless.errorField == "reason")
            let byDispatcher = try await client.call(.post, "/v1/rides/\(third.id)/cancel", as: world.dispatcher,
                                                     json: #"{"reason":"driver unreachable"}"#)
            #expect(byDispatcher.status == .ok && byDispatcher.string("state") == "cancelled" && byDispatcher.json["key"] == nil)
        }
        let reasons = try await world.store.events(after: 0, limit: 50).compactMap(\.detail)
        #expect(reasons == ["found another way", "driver unreachable"])
    }

    @Test(arguments: StoreKind.available)
    func adminManagesAccountsAndTokens(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let created = try await client.call(.post, "/v1/accounts", as: world.admin,
                                                json: #"{"role":"driver","displayName":"Eve","vehicle":"white Leaf"}"#)
            #expect(created.status == .created && created.string("vehicle") == "white Leaf")
            let issued = try await client.call(.post, "/v1/accounts/\(created.id)/tokens", as: world.admin)
            #expect(issued.status == .created)
            let token = try #require(issued.string("token"))
            #expect(token.hasPrefix("rb_") && token.count == 46)
            let eve = Member(account: try #require(try await world.store.account(id: created.id)), token: token)

            // The new token works until its account's tokens are revoked.
            #expect(try await client.call(.get, "/v1/ride-requests", as: eve).status == .ok)
            let revoked = try await client.call(.post, "/v1/accounts/\(created.id)/revoke-tokens", as: world.admin)
            #expect(revoked.json["revoked"] as? Int == 1)
            #expect(try await client.call(.get, "/v1/ride-requests", as: eve).status == .unauthorized)

            let all = try await client.call(.get, "/v1/accounts", as: world.admin)
            #expect((all.json["accounts"] as? [[String: Any]])?.count == 7)
            #expect(try await client.call(.post, "/v1/accounts/nobody/tokens", as: world.admin).status == .notFound)
            #expect(try await client.call(.post, "/v1/accounts/nobody/revoke-tokens", as: world.admin).status == .notFound)
        }
    }
}
