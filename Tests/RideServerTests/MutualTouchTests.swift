import BeaconCore
import Foundation
import HummingbirdTesting
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// Issue 12's mutual rule over HTTP, on both stores: the ride is confirmed only when the
/// passenger's and the driver's observation windows meet (within 1 s); otherwise the proof is
/// kept, the answer says `touch_not_simultaneous`, the ride stays arrived, and the other side's
/// device learns when this one felt the touch (`touch_observed`).
@Suite("Mutual touch: observation windows", .timeLimit(.minutes(2)))
struct MutualTouchTests {
    static let worlds = PerStoreKind { try await World.make($0) }
    static func world(_ kind: StoreKind) async throws -> World { try await worlds.value(for: kind) }

    @Test(arguments: StoreKind.available)
    func overlappingWindowsConfirm(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let overlapping = try await world.arrivedRide()
        let withinTolerance = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let start = clock.now
            // Felt for 2 s by the passenger, and by the driver from 0.5 s before the passenger's proof.
            let passenger = try await client.call(.post, "/v1/rides/\(overlapping.id)/touch-proofs", as: world.passenger,
                                                  json: ProofBody(ride: overlapping.key, by: .passenger, at: start).held(for: 2).json)
            #expect(passenger.string("outcome") == "awaiting_counterpart")
            // The instant windows of the other ride: the driver's 0.8 s after the passenger's.
            let instant = try await client.call(.post, "/v1/rides/\(withinTolerance.id)/touch-proofs", as: world.passenger,
                                                json: ProofBody(ride: withinTolerance.key, by: .passenger, at: start).json)
            #expect(instant.string("outcome") == "awaiting_counterpart")
            clock.advance(1)
            let driver = try await client.call(.post, "/v1/rides/\(overlapping.id)/touch-proofs", as: world.driver,
                                               json: ProofBody(ride: overlapping.key, by: .driver, at: clock.now).held(for: 1.5).json)
            #expect(driver.status == .ok && driver.string("outcome") == "confirmed", "\(driver.text)")
            #expect(try await world.store.ride(id: overlapping.id)?.state == .confirmed)

            var close = try ProofBody(ride: withinTolerance.key, by: .driver, at: start.addingTimeInterval(0.8))
            close.observedAt = start.addingTimeInterval(0.8)
            let closeAnswer = try await client.call(.post, "/v1/rides/\(withinTolerance.id)/touch-proofs", as: world.driver, json: close.json)
            #expect(closeAnswer.string("outcome") == "confirmed", "0.8 s apart is one touch: \(closeAnswer.text)")
            let stored = try await world.store.touchProofs(rideID: overlapping.id)
            #expect(stored.map(\.side) == [.passenger, .driver])
            #expect(stored.first.map { $0.observedUntil.timeIntervalSince($0.observedFrom) } == 2, "the window is stored")
        }
    }

    @Test(arguments: StoreKind.available)
    func windowsThatDoNotMeetKeepTheProofAndTheRideArrived(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        let path = "/v1/rides/\(ride.id)/touch-proofs"
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let start = clock.now
            let passenger = try await client.call(.post, path, as: world.passenger,
                                                  json: ProofBody(ride: ride.key, by: .passenger, at: start).held(for: 1).json)
            #expect(passenger.string("outcome") == "awaiting_counterpart")
            // The driver's device felt a jump from 2.5 s after the passenger's ended: two events, not one touch.
            clock.advance(4)
            let driver = try await client.call(.post, path, as: world.driver,
                                               json: ProofBody(ride: ride.key, by: .driver, at: clock.now).held(for: 1.5).json)
            #expect(driver.status == .ok && driver.string("outcome") == "touch_not_simultaneous", "\(driver.text)")
            #expect((driver.json["ride"] as? [String: Any])?["state"] as? String == "arrived")
            #expect(try await world.store.ride(id: ride.id)?.state == .arrived)
            #expect(try await world.store.touchProofs(rideID: ride.id).count == 2, "the proof is kept")

            // The passenger's device feels the touch the driver's still feels: now one touch.
            clock.advance(1)
            let again = try await client.call(.post, path, as: world.passenger,
                                              json: ProofBody(ride: ride.key, by: .passenger, at: clock.now).held(for: 0.5).json)
            #expect(again.string("outcome") == "confirmed", "\(again.text)")
            #expect(try await world.store.ride(id: ride.id)?.state == .confirmed)
            let metrics = try await client.call(.get, "/metrics", as: nil).text
            #expect(metrics.contains(#"ridebeacon_touch_proofs_total{outcome="touch_not_simultaneous"}"#))
        }
    }

    /// One side feels the touch, the other never does: no confirmation, however often it proves.
    @Test(arguments: StoreKind.available)
    func oneSideAloneNeverConfirmsAndTheOtherSideHearsOfIt(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let port = try #require(client.port)
            let passengerStream = try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events", token: world.passenger.token)
            defer { passengerStream.close() }
            for _ in 0..<3 {
                let driver = try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: world.driver,
                                                   json: ProofBody(ride: ride.key, by: .driver, at: clock.now).held(for: 1).json)
                #expect(driver.string("outcome") == "awaiting_counterpart")
                clock.advance(5)
            }
            #expect(try await world.store.ride(id: ride.id)?.state == .arrived)
            let history = try await world.store.events(rideID: ride.id, after: 0)
            let observed = history.compactMap(\.touchObserved)
            #expect(observed.count == 3 && observed.allSatisfy { $0.side == .driver })
            #expect(observed.first.map { $0.until.timeIntervalSince($0.from) } == 1)
            #expect(!history.contains { $0.state == .confirmed })
            // The passenger's device hears it live, by name, with the driver's window.
            let seen = await passengerStream.wait(timeout: .seconds(30)) { $0.contains { $0.event == "touch_observed" } }
            let event = try #require(seen.first { $0.event == "touch_observed" })
            #expect(event.json["state"] as? String == "arrived")
            #expect((event.json["detail"] as? String)?.hasPrefix("touch_observed by driver from ") == true)
        }
    }

    @Test(arguments: StoreKind.available)
    func malformedWindowsAreRefusedByFieldAndChangeNothing(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        let path = "/v1/rides/\(ride.id)/touch-proofs"
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let before = try await TouchProofTests.snapshot(world, ride)
            let good = try ProofBody(ride: ride.key, by: .passenger, at: clock.now)
            func answer(_ body: ProofBody) async throws -> (Int, String?, String?) {
                let response = try await client.call(.post, path, as: world.passenger, json: body.json)
                return (Int(response.status.code), response.errorCode, response.errorField)
            }
            var onlyFrom = good
            onlyFrom.observedFrom = good.observedAt.addingTimeInterval(-1)
            #expect(try await answer(onlyFrom) == (400, "invalid_field", "observedUntil"))
            var onlyUntil = good
            onlyUntil.observedUntil = good.observedAt
            #expect(try await answer(onlyUntil) == (400, "invalid_field", "observedFrom"))
            var startsLate = good.held(for: 1)
            startsLate.observedFrom = good.observedAt.addingTimeInterval(1)
            #expect(try await answer(startsLate) == (400, "invalid_field", "observedFrom"))
            var endsEarly = good.held(for: 1)
            endsEarly.observedUntil = good.observedAt.addingTimeInterval(-0.5)
            #expect(try await answer(endsEarly) == (400, "invalid_field", "observedUntil"))
            #expect(try await answer(good.held(for: 61)) == (400, "invalid_field", "observedFrom"), "a window longer than 60 s")
            var future = good.held(for: 1)
            future.observedUntil = clock.now.addingTimeInterval(5)
            #expect(try await answer(future) == (422, "stale_proof", "observedUntil"))
            let text = try await client.call(.post, path, as: world.passenger,
                                             json: good.held(for: 1).json.replacingOccurrences(of: #""observedFrom":""#, with: #""observedFrom":"x"#))
            #expect(text.errorField == "observedFrom" && text.errorCode == "invalid_field")
            #expect(try await TouchProofTests.snapshot(world, ride) == before)
        }
    }
}
