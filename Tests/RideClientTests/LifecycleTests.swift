import BeaconCore
import Foundation
import RideClient
import RideSession
import RideStore
import Testing

/// The whole ride through the typed client, against the real server over HTTP.
@Suite("RideServiceClient lifecycle", .timeLimit(.minutes(2)))
struct LifecycleTests {
    @Test func requestAcceptArriveProveConfirmComplete() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            let server = "http://127.0.0.1:\(port)"
            try await withRideServiceClient(server: server, token: world.passenger.token) { passenger in
            try await withRideServiceClient(server: server, token: world.driver.token) { driver in
            try await withRideServiceClient(server: server, token: world.dispatcher.token) { dispatcher in
                let request = try await passenger.createRideRequest(
                    NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station", accessibilityNotes: "guide dog"))
                #expect(request.status == .open && request.passengerID == world.passenger.id && request.accessibilityNotes == "guide dog")

                let open = try await driver.allRideRequests()
                let seen = try #require(open.first { $0.id == request.id })
                #expect(seen.passengerID == nil, "drivers must not see the passenger's account id")
                #expect(seen.pickup == "Main St 1" && seen.dropoff == "Station")

                let ride = try await driver.acceptRideRequest(request.id)
                #expect(ride.state == .accepted && ride.requestID == request.id)
                #expect(ride.driver.name == "Ben" && ride.driver.vehicle == "blue Prius" && ride.passenger.name == "Ana")
                let driverKey = try #require(ride.rideKey)
                #expect(driverKey.bytes.count == 32)
                #expect(try await passenger.rideKey(ride.id).bytes == driverKey.bytes)

                let board = try await dispatcher.allRides()
                let listed = try #require(board.first { $0.id == ride.id })
                #expect(listed.key == nil && listed.rideKey == nil, "dispatchers never receive ride keys")
                await #expect(throws: RideClientError.self) { try await dispatcher.rideKey(ride.id) }

                let arrived = try await driver.arrive(ride.id)
                #expect(arrived.state == .arrived)

                // The passenger's proof of the driver's beacon, derived exactly as the driver advertises it.
                let identity = try driverKey.identity()
                let now = Date()
                let slot = identity.slot(at: now.timeIntervalSince1970)
                let proof = TouchProof(TouchObservation(identity: identity.identity(of: .driver, slot: slot), slot: slot,
                                                        peakFilteredRSSI: -28.5, samples: 12, unixTime: now.timeIntervalSince1970))
                switch try await passenger.submitTouchProof(proof, rideID: ride.id) {
                case .notVerified(let message):
                    // A server before touch-proof verification: the ride does not change.
                    #expect(message.contains("touch proofs"))
                    #expect(try await passenger.ride(ride.id).state == .arrived)
                    try await world.confirmAsOperator(rideID: ride.id)
                case .accepted(let result):
                    #expect(result.side == .passenger && result.ride.id == ride.id)
                    if result.outcome == .awaitingCounterpart { try await world.confirmAsOperator(rideID: ride.id) }
                }
                #expect(try await passenger.ride(ride.id).state == .confirmed)

                let completed = try await driver.complete(ride.id)
                #expect(completed.state == .completed)
                #expect(try await passenger.allRides().first { $0.id == ride.id }?.state == .completed)
                #expect(try await dispatcher.allRides().contains { $0.id == ride.id } == false, "the board shows active rides only")
            }
            }
            }
        }
        await world.close()
    }

    @Test func passengerWithdrawsARequestAndCancelsARide() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            let server = "http://127.0.0.1:\(port)"
            try await withRideServiceClient(server: server, token: world.passenger.token) { passenger in
            try await withRideServiceClient(server: server, token: world.driver.token) { driver in
                let withdrawn = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"))
                let cancelled = try await passenger.cancelRideRequest(withdrawn.id)
                #expect(cancelled.status == .cancelled)
                #expect(try await driver.allRideRequests().contains { $0.id == withdrawn.id } == false)

                let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"))
                let ride = try await driver.acceptRideRequest(request.id)
                let gone = try await passenger.cancelRide(ride.id, reason: "plans changed")
                #expect(gone.state == .cancelled)
                #expect(try await driver.ride(ride.id).state == .cancelled)
            }
            }
        }
        await world.close()
    }

    @Test func pagesAreFollowedToTheEnd() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            try await withRideServiceClient(server: "http://127.0.0.1:\(port)", token: world.passenger.token) { passenger in
                var made: [String] = []
                // Five requests of one passenger: only the store (not the API, one ride at a time) makes them.
                for i in 0..<5 {
                    made.append(try await world.store.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "P\(i)", dropoff: "D"),
                                                                        passengerID: world.passenger.id, idempotency: nil).id)
                }
                // Listings run in (createdAt, id) order: requests made in the same millisecond
                // follow their random ids, so the expected order is the store's, not `made`'s.
                let listed = try await world.store.rideRequests(passengerID: world.passenger.id, limit: 10, after: nil).map(\.id)
                #expect(Set(listed) == Set(made) && listed.count == made.count)
                let first = try await passenger.rideRequests(limit: 2)
                #expect(first.items.map(\.id) == Array(listed.prefix(2)) && first.nextAfter != nil)
                var walked = first.items.map(\.id), after = first.nextAfter, pages = 1
                while let cursor = after {
                    let page = try await passenger.rideRequests(limit: 2, after: cursor)
                    walked += page.items.map(\.id)
                    after = page.nextAfter
                    pages += 1
                }
                #expect(walked == listed && pages == 3)
                #expect(try await passenger.allRideRequests().map(\.id) == listed)
            }
        }
        await world.close()
    }
}
