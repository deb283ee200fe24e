import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// One ride at a time and short ride codes, on both stores.
@Suite("Store: one ride at a time, short codes")
struct OneRideAtATimeStoreTests {
    func exclusiveRequest(_ store: any Store, _ passenger: Account) async throws -> RideRequestRecord {
        try await store.createRideRequest(NewRideRequest(passengerName: passenger.displayName, pickup: "Main St 1", dropoff: "Station"),
                                          passengerID: passenger.id, rule: .oneRideAtATime, idempotency: nil)
    }

    @Test(arguments: StoreKind.available)
    func aPassengerHoldsOneOpenRequestOrActiveRide(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let first = try await exclusiveRequest(store, cast.passenger)
        await #expect(throws: StoreError.busy(role: .passenger, existingID: first.id)) { try await exclusiveRequest(store, cast.passenger) }
        let ride = try await store.accept(requestID: first.id, driverID: cast.driver.id, rideKey: sampleKey, rule: .oneRideAtATime, idempotency: nil)
        await #expect(throws: StoreError.busy(role: .passenger, existingID: ride.id)) { try await exclusiveRequest(store, cast.passenger) }
        #expect(try await store.rideRequests(passengerID: cast.passenger.id).count == 1, "the refusals wrote nothing")
        _ = try await store.transition(rideID: ride.id, to: .cancelled, by: cast.passenger.id, detail: nil, idempotency: nil)
        let next = try await exclusiveRequest(store, cast.passenger)
        #expect(next.status == .open)
    }

    @Test(arguments: StoreKind.available)
    func aDriverHoldsOneRideAndReacceptingGivesItBack(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let other = try await store.createAccount(NewAccount(role: .passenger, displayName: "Bo"))
        let first = try await exclusiveRequest(store, cast.passenger)
        let second = try await exclusiveRequest(store, other)
        let ride = try await store.accept(requestID: first.id, driverID: cast.driver.id, rideKey: sampleKey, rule: .oneRideAtATime, idempotency: nil)
        let again = try await store.accept(requestID: first.id, driverID: cast.driver.id, rideKey: Data(repeating: 1, count: 32),
                                           rule: .oneRideAtATime, idempotency: nil)
        #expect(again == ride, "the same driver gets the same ride, key and all")
        await #expect(throws: StoreError.alreadyTaken(first.id)) {
            try await store.accept(requestID: first.id, driverID: cast.otherDriver.id, rideKey: sampleKey, rule: .oneRideAtATime, idempotency: nil)
        }
        await #expect(throws: StoreError.busy(role: .driver, existingID: ride.id)) {
            try await store.accept(requestID: second.id, driverID: cast.driver.id, rideKey: sampleKey, rule: .oneRideAtATime, idempotency: nil)
        }
        #expect(try await store.rideRequest(id: second.id)?.status == .open, "the refusal changed nothing")
        // Issue 37 (9): confirmed is the passenger on board, not done: he stays busy until the
        // ride is completed (a dispatcher could assign a second passenger to a full car).
        _ = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
        _ = try await store.transition(rideID: ride.id, to: .confirmed, by: "operator", detail: nil, idempotency: nil)
        await #expect(throws: StoreError.busy(role: .driver, existingID: ride.id)) {
            try await store.accept(requestID: second.id, driverID: cast.driver.id, rideKey: sampleKey, rule: .oneRideAtATime,
                                   assignedBy: cast.otherDriver.id, idempotency: nil)
        }
        #expect(try await store.rideRequest(id: second.id)?.status == .open, "the refusal changed nothing")
        let confirmedAgain = try await store.accept(requestID: first.id, driverID: cast.driver.id, rideKey: sampleKey, rule: .oneRideAtATime, idempotency: nil)
        #expect(confirmedAgain.state == .confirmed, "his own confirmed ride is still the answer to his accept of it")
        _ = try await store.transition(rideID: ride.id, to: .completed, by: cast.driver.id, detail: nil, idempotency: nil)
        let next = try await store.accept(requestID: second.id, driverID: cast.driver.id, rideKey: sampleKey, rule: .oneRideAtATime, idempotency: nil)
        #expect(next.state == .accepted, "completed frees him")
    }

    @Test(arguments: StoreKind.available)
    func codesAreSpeakableUniqueAmongActiveAndFollowTheRide(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        var codes: Set<String> = []
        for _ in 0..<20 {
            let request = try await cast.request(store)
            let code = try #require(request.shortCode)
            #expect(ShortCode.normalized(code) == code)
            codes.insert(code)
            #expect(try await store.rideRequest(code: code)?.id == request.id)
        }
        #expect(codes.count == 20, "no two open requests share a code")
        let request = try await cast.request(store)
        let ride = try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        #expect(ride.shortCode == request.shortCode)
        #expect(try await store.rideDetail(id: ride.id)?.ride.shortCode == request.shortCode)
        #expect(try await store.rideDetail(id: ride.id)?.pickup == "Main St 1", "active rides show their pickup")
        #expect(try await store.rideRequest(code: try #require(request.shortCode))?.rideID == ride.id)
        #expect(try await store.rideRequest(code: "MMMM") == nil || codes.contains("MMMM"))
    }
}
