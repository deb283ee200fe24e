import BeaconCore
import Foundation
import HummingbirdTesting
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// Touch proofs over HTTP: every rejection has its own code and changes nothing; the policies
/// confirm exactly when they should. The server's clock is stepped, never waited for.
@Suite("Touch proofs", .timeLimit(.minutes(2)))
struct TouchProofTests {
    /// One world per store kind: the tests only look at their own rides, and every new
    /// PostgreSQL database is a burst of fsyncs on a shared, loaded machine.
    static let worlds = PerStoreKind { try await World.make($0) }
    static func world(_ kind: StoreKind) async throws -> World { try await worlds.value(for: kind) }

    /// The ride's state and history length, which a rejected proof must leave alone.
    static func snapshot(_ world: World, _ ride: RideRecord) async throws -> (RideState?, Int, Int) {
        (try await world.store.ride(id: ride.id)?.state, try await world.store.events(rideID: ride.id, after: 0).count,
         try await world.store.touchProofs(rideID: ride.id).count)
    }

    @Test(arguments: StoreKind.available)
    func eachRejectionHasItsOwnReasonAndChangesNothing(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        let otherRide = try await world.arrivedRide()
        let acceptedOnly = try await world.acceptedRide(key: Data(repeating: 3, count: 32))
        let path = "/v1/rides/\(ride.id)/touch-proofs"
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let before = try await Self.snapshot(world, ride)
            func rejected(_ body: ProofBody, as member: Member, on target: String = path) async throws -> (Int, String?, String?) {
                let response = try await client.call(.post, target, as: member, json: body.json)
                return (Int(response.status.code), response.errorCode, response.errorField)
            }
            let now = clock.now
            // Another ride's driver identity, in the right slot.
            let foreign = try ProofBody(ride: otherRide.key, by: .passenger, at: now)
            #expect(try await rejected(foreign, as: world.passenger) == (422, "wrong_identity", "uuid"))
            // The passenger's own beacon instead of the driver's.
            var own = try ProofBody(ride: ride.key, by: .passenger, at: now)
            own.identity = try RotatingIdentity(rideKey: ride.key).identity(of: .passenger, slot: own.slot)
            let ownResponse = try await client.call(.post, path, as: world.passenger, json: own.json)
            #expect(ownResponse.errorCode == "wrong_identity" && ownResponse.errorMessage.contains("your own beacon"))
            // A passenger who is not this ride's.
            let good = try ProofBody(ride: ride.key, by: .passenger, at: now)
            #expect(try await rejected(good, as: world.otherPassenger) == (403, "not_your_ride", nil))
            #expect(try await rejected(good, as: world.otherDriver) == (403, "not_your_ride", nil))
            // A ride that is only accepted.
            let early = try await client.call(.post, "/v1/rides/\(acceptedOnly.id)/touch-proofs", as: world.passenger,
                                              json: ProofBody(ride: acceptedOnly.key, by: .passenger, at: now).json)
            #expect(early.status == .conflict && early.errorCode == "wrong_state" && early.errorState == "accepted")
            // Freshness: observed 11 s ago, or 5 s in the server's future.
            var old = good
            old.observedAt = now.addingTimeInterval(-11)
            #expect(try await rejected(old, as: world.passenger) == (422, "stale_proof", "observedAt"))
            var ahead = good
            ahead.observedAt = now.addingTimeInterval(5)
            #expect(try await rejected(ahead, as: world.passenger) == (422, "stale_proof", "observedAt"))
            // A driver identity recorded in slot s and replayed two slots later, with a fresh time.
            let recorded = try ProofBody(ride: ride.key, by: .passenger, at: now)
            clock.advance(60)
            var replayed = recorded
            replayed.observedAt = clock.now
            #expect(try await rejected(replayed, as: world.passenger) == (422, "stale_slot", "slot"))
            // One slot of skew is still accepted (the next test below uses it).
            #expect(try await Self.snapshot(world, ride) == before)
            #expect(try await world.store.ride(id: acceptedOnly.id)?.state == .accepted)

            // A proof accepted once is refused the second time.
            let fresh = try ProofBody(ride: ride.key, by: .passenger, at: clock.now)
            let first = try await client.call(.post, path, as: world.passenger, json: fresh.json)
            #expect(first.status == .ok && first.string("outcome") == "awaiting_counterpart" && first.string("side") == "passenger")
            let afterFirst = try await Self.snapshot(world, ride)
            #expect(try await rejected(fresh, as: world.passenger) == (409, "replayed_proof", nil))
            #expect(try await Self.snapshot(world, ride) == afterFirst)
            // Outcomes are counted by code, never by ride.
            let metrics = try await client.call(.get, "/metrics", as: nil).text
            for (outcome, count) in [("wrong_identity", 2), ("not_your_ride", 2), ("wrong_state", 1), ("stale_proof", 2),
                                     ("stale_slot", 1), ("replayed_proof", 1), ("awaiting_counterpart", 1)] {
                #expect(metrics.contains(#"ridebeacon_touch_proofs_total{outcome="\#(outcome)"} \#(count)"#), "\(outcome)")
            }
            #expect(!metrics.contains(ride.id))
        }
    }

    @Test func aSlotOfClockSkewIsTolerated() async throws {
        let world = try await Self.world(.sqlite)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            // The driver's clock is a slot behind: what it advertised is one slot old.
            var behind = try ProofBody(ride: ride.key, by: .passenger, at: clock.now.addingTimeInterval(-30))
            behind.observedAt = clock.now
            let response = try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: world.passenger, json: behind.json)
            #expect(response.status == .ok && response.string("outcome") == "awaiting_counterpart")
        }
    }

    @Test(arguments: StoreKind.available)
    func mutualPolicyNeedsBothSidesWithinTenSeconds(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let together = try await world.arrivedRide()
        let apart = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            func post(_ ride: RideRecord, _ side: BeaconSide) async throws -> TestResponse {
                try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: side == .passenger ? world.passenger : world.driver,
                                      json: ProofBody(ride: ride.key, by: side, at: clock.now).json)
            }
            let alone = try await post(together, .passenger)
            #expect(alone.string("outcome") == "awaiting_counterpart")
            #expect(try await world.store.ride(id: together.id)?.state == .arrived, "the passenger's proof alone does not confirm")
            clock.advance(6)
            // The driver's device has felt the touch since the passenger's proof (6 s, one window).
            let both = try await client.call(.post, "/v1/rides/\(together.id)/touch-proofs", as: world.driver,
                                             json: ProofBody(ride: together.key, by: .driver, at: clock.now).held(for: 7).json)
            #expect(both.status == .ok && both.string("outcome") == "confirmed" && both.string("side") == "driver")
            #expect((both.json["ride"] as? [String: Any])?["state"] as? String == "confirmed")
            #expect(try await world.store.ride(id: together.id)?.state == .confirmed)

            _ = try await post(apart, .passenger)
            clock.advance(30)
            let late = try await post(apart, .driver)
            #expect(late.status == .ok && late.string("outcome") == "awaiting_counterpart")
            #expect(try await world.store.ride(id: apart.id)?.state == .arrived, "proofs 30 s apart do not confirm")
            // Once confirmed, further proofs are out of place.
            let afterwards = try await post(together, .passenger)
            #expect(afterwards.errorCode == "wrong_state" && afterwards.errorState == "confirmed")
        }
    }

    @Test(arguments: StoreKind.available)
    func passengerPolicyConfirmsOnThePassengersProof(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        let other = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading; $0.touch.policy = .passenger }).test(.live) { client in
            let driverOnly = try await client.call(.post, "/v1/rides/\(other.id)/touch-proofs", as: world.driver,
                                                   json: ProofBody(ride: other.key, by: .driver, at: clock.now).json)
            #expect(driverOnly.string("outcome") == "awaiting_counterpart")
            let passenger = try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: world.passenger,
                                                  json: ProofBody(ride: ride.key, by: .passenger, at: clock.now).json)
            #expect(passenger.string("outcome") == "confirmed")
            #expect(try await world.store.ride(id: ride.id)?.state == .confirmed)
            #expect(try await world.store.ride(id: other.id)?.state == .arrived)
        }
    }

    /// Both sides and dispatchers hear the confirmation on their live streams.
    @Test(arguments: StoreKind.available)
    func confirmationReachesEveryStream(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let port = try #require(client.port)
            let streams = [
                try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events", token: world.passenger.token),
                try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events", token: world.driver.token),
                try await SSEReader.open(port: port, path: "/v1/events?after=0", token: world.dispatcher.token),
            ]
            defer { streams.forEach { $0.close() } }
            for side in [BeaconSide.passenger, .driver] {
                _ = try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: side == .passenger ? world.passenger : world.driver,
                                          json: ProofBody(ride: ride.key, by: side, at: clock.now).json)
            }
            for stream in streams {
                let ours = { (message: SSEMessage) in message.event == "confirmed" && message.json["rideId"] as? String == ride.id }
                let seen = await stream.wait { $0.contains(where: ours) }
                let confirmed = try #require(seen.first(where: ours))
                #expect(confirmed.json["rideId"] as? String == ride.id && confirmed.json["actorId"] as? String == world.driver.id)
            }
        }
    }

    /// A retry with the same Idempotency-Key gets the first answer, even after the ride moved on.
    @Test func idempotentRetryAfterConfirmationReturnsTheFirstAnswer() async throws {
        let world = try await Self.world(.sqlite)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading; $0.touch.policy = .passenger }).test(.live) { client in
            let body = try ProofBody(ride: ride.key, by: .passenger, at: clock.now).json
            let path = "/v1/rides/\(ride.id)/touch-proofs"
            let first = try await client.call(.post, path, as: world.passenger, json: body, headers: ["Idempotency-Key": "touch-1"])
            let retry = try await client.call(.post, path, as: world.passenger, json: body, headers: ["Idempotency-Key": "touch-1"])
            #expect(first.status == .ok && first.string("outcome") == "confirmed")
            #expect(retry.status == .ok && retry.text == first.text)
        }
    }
}
