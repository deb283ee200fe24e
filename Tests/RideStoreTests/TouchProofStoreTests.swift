import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// Recording touch proofs, confirming by policy, refusing replays, and the location
/// retention purge, on every store.
@Suite("Store contract: touch proofs and retention")
struct TouchProofStoreTests {
    /// One database per kind for the tests that only look at their own rides: every CREATE
    /// DATABASE costs the shared PostgreSQL a burst of fsyncs, and a loaded machine then misses
    /// the store's 5 s deadline.
    static let stores = PerStoreKind { try await $0.make() }
    static func shared(_ kind: StoreKind) async throws -> any Store { try await stores.value(for: kind) }

    static let base = Date(timeIntervalSince1970: 1_767_225_600)

    /// A ride its driver has marked arrived.
    static func arrivedRide(_ store: any Store, _ cast: Cast) async throws -> RideRecord {
        let request = try await cast.request(store)
        let ride = try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        return try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
    }

    /// Observed 1 s before it is received; `heldFor`: its observation window began that long
    /// before (nil: the instant it was observed at).
    static func proof(_ ride: RideRecord, _ side: TouchSide, receivedAfter seconds: TimeInterval = 0, slot: Int64 = 58_840_853,
                      heldFor: TimeInterval? = nil) -> VerifiedTouchProof {
        let observed = base.addingTimeInterval(seconds - 1)
        return VerifiedTouchProof(rideID: ride.id, side: side, accountID: side == .passenger ? ride.passengerID : ride.driverID, slot: slot,
                                  uuid: UUID(), major: 1, minor: 2, peakRssiDbm: -42.5, samples: 9,
                                  observedAt: observed, receivedAt: base.addingTimeInterval(seconds),
                                  observedFrom: heldFor.map { observed.addingTimeInterval(-$0) }, observedUntil: heldFor.map { _ in observed })
    }

    @Test(arguments: StoreKind.available)
    func mutualNeedsBothSidesWithinTenSeconds(kind: StoreKind) async throws {
        let store = try await Self.shared(kind)
        let cast = try await Cast(store)
        let ride = try await Self.arrivedRide(store, cast)
        let alone = try await store.recordTouchProof(Self.proof(ride, .passenger), policy: .mutual, idempotency: nil)
        #expect(!alone.confirmed && alone.ride.state == .arrived)
        #expect(try await store.ride(id: ride.id)?.state == .arrived)
        // The driver's device has felt the touch since before the passenger's proof.
        let both = try await store.recordTouchProof(Self.proof(ride, .driver, receivedAfter: 9.5, heldFor: 10), policy: .mutual, idempotency: nil)
        #expect(both.confirmed && both.ride.state == .confirmed)
        #expect(try await store.ride(id: ride.id)?.state == .confirmed)
        let last = try #require(try await store.events(rideID: ride.id, after: 0).last)
        #expect(last.state == .confirmed && last.actorID == cast.driver.id && last.detail == "touch proofs of passenger and driver")
        #expect(try await store.touchProofs(rideID: ride.id).map(\.side) == [.passenger, .driver])
    }

    @Test(arguments: StoreKind.available)
    func mutualProofsThirtySecondsApartDoNotConfirm(kind: StoreKind) async throws {
        let store = try await Self.shared(kind)
        let cast = try await Cast(store)
        let ride = try await Self.arrivedRide(store, cast)
        _ = try await store.recordTouchProof(Self.proof(ride, .passenger), policy: .mutual, idempotency: nil)
        let late = try await store.recordTouchProof(Self.proof(ride, .driver, receivedAfter: 30), policy: .mutual, idempotency: nil)
        #expect(!late.confirmed)
        #expect(try await store.ride(id: ride.id)?.state == .arrived)
        // The passenger touching again, now next to the driver's proof, does confirm.
        let again = try await store.recordTouchProof(Self.proof(ride, .passenger, receivedAfter: 31), policy: .mutual, idempotency: nil)
        #expect(again.confirmed)
    }

    /// Issue 12: both sides must feel the same touch. Proofs received close together whose
    /// observation windows do not meet are kept, say so, and leave the ride arrived; each
    /// becomes a `touch_observed` event carrying its window.
    @Test(arguments: StoreKind.available)
    func mutualNeedsTheObservationWindowsToMeet(kind: StoreKind) async throws {
        let store = try await Self.shared(kind)
        let cast = try await Cast(store)
        let ride = try await Self.arrivedRide(store, cast)
        let passenger = try await store.recordTouchProof(Self.proof(ride, .passenger, heldFor: 1), policy: .mutual, idempotency: nil)
        #expect(!passenger.confirmed && passenger.notSimultaneous == nil, "no counterpart yet")
        // The driver's device felt a jump 3 s after the passenger's window ended.
        let driver = try await store.recordTouchProof(Self.proof(ride, .driver, receivedAfter: 4, heldFor: 1), policy: .mutual, idempotency: nil)
        #expect(!driver.confirmed && driver.notSimultaneous == true && driver.ride.state == .arrived)
        #expect(try await store.ride(id: ride.id)?.state == .arrived)
        let stored = try await store.touchProofs(rideID: ride.id)
        #expect(stored.count == 2)
        #expect(stored.last?.observedFrom == Self.base.addingTimeInterval(2) && stored.last?.observedUntil == Self.base.addingTimeInterval(3),
                "the window is stored")
        let observed = try await store.events(rideID: ride.id, after: 0).compactMap(\.touchObserved)
        #expect(observed == [TouchObserved(side: .passenger, from: Self.base.addingTimeInterval(-2), until: Self.base.addingTimeInterval(-1)),
                             TouchObserved(side: .driver, from: Self.base.addingTimeInterval(2), until: Self.base.addingTimeInterval(3))])
        // 0.9 s after the driver's window: the same touch.
        var close = Self.proof(ride, .passenger, receivedAfter: 5)
        close.observedAt = Self.base.addingTimeInterval(3.9)
        close.observedFrom = close.observedAt
        close.observedUntil = close.observedAt
        let meets = try await store.recordTouchProof(close, policy: .mutual, idempotency: nil)
        #expect(meets.confirmed && meets.ride.state == .confirmed)
    }

    @Test(arguments: StoreKind.available)
    func passengerPolicyConfirmsOnThePassengersProofOnly(kind: StoreKind) async throws {
        let store = try await Self.shared(kind)
        let cast = try await Cast(store)
        let ride = try await Self.arrivedRide(store, cast)
        let driverOnly = try await store.recordTouchProof(Self.proof(ride, .driver), policy: .passenger, idempotency: nil)
        #expect(!driverOnly.confirmed)
        let passenger = try await store.recordTouchProof(Self.proof(ride, .passenger, receivedAfter: 60), policy: .passenger, idempotency: nil)
        #expect(passenger.confirmed && passenger.ride.state == .confirmed)
        #expect(try await store.events(rideID: ride.id, after: 0).last?.detail == "touch proof of the passenger")
        #expect(try await store.events(rideID: ride.id, after: 0).allSatisfy { $0.touchObserved == nil }, "no counterpart to tell")
    }

    @Test(arguments: StoreKind.available)
    func replayIsRefusedAndStoresNothing(kind: StoreKind) async throws {
        let store = try await Self.shared(kind)
        let cast = try await Cast(store)
        let ride = try await Self.arrivedRide(store, cast)
        let proof = Self.proof(ride, .passenger)
        _ = try await store.recordTouchProof(proof, policy: .mutual, idempotency: nil)
        var replay = proof
        replay.receivedAt = proof.receivedAt.addingTimeInterval(3)
        let refusal = await #expect(throws: StoreError.self) { try await store.recordTouchProof(replay, policy: .mutual, idempotency: nil) }
        guard case .replayed = refusal else { Issue.record("expected replayed, got \(String(describing: refusal))"); return }
        #expect(try await store.touchProofs(rideID: ride.id).count == 1)
        #expect(try await store.ride(id: ride.id)?.state == .arrived)
    }

    @Test(arguments: StoreKind.available)
    func proofsOutsideArrivedAreRefusedAndNotKept(kind: StoreKind) async throws {
        let store = try await Self.shared(kind)
        let cast = try await Cast(store)
        let request = try await cast.request(store)
        let ride = try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        await #expect(throws: StoreError.illegalTransition(from: .accepted, to: .confirmed)) {
            try await store.recordTouchProof(Self.proof(ride, .passenger), policy: .passenger, idempotency: nil)
        }
        #expect(try await store.touchProofs(rideID: ride.id).isEmpty)
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.state) == [.requested, .accepted])
    }

    @Test(arguments: StoreKind.available)
    func simultaneousProofsOfBothSidesConfirmExactlyOnce(kind: StoreKind) async throws {
        let store = try await Self.shared(kind)
        let cast = try await Cast(store)
        for _ in 0..<5 {
            let ride = try await Self.arrivedRide(store, cast)
            async let passenger = store.recordTouchProof(Self.proof(ride, .passenger), policy: .mutual, idempotency: nil)
            async let driver = store.recordTouchProof(Self.proof(ride, .driver, receivedAfter: 0.5), policy: .mutual, idempotency: nil)
            let outcomes = try await [passenger, driver]
            // Serialised per ride: whichever is second sees the first and confirms.
            #expect(outcomes.filter(\.confirmed).count == 1)
            #expect(try await store.events(rideID: ride.id, after: 0).filter { $0.state == .confirmed }.count == 1)
        }
    }

    @Test(arguments: StoreKind.available)
    func idempotentRetryReturnsTheFirstOutcome(kind: StoreKind) async throws {
        let store = try await Self.shared(kind)
        let cast = try await Cast(store)
        let ride = try await Self.arrivedRide(store, cast)
        let key = IdempotencyScope(accountID: cast.passenger.id, key: "touch-1")
        let first = try await store.recordTouchProof(Self.proof(ride, .passenger), policy: .passenger, idempotency: key)
        let retry = try await store.recordTouchProof(Self.proof(ride, .passenger), policy: .passenger, idempotency: key)
        #expect(first.confirmed && retry == first)
        #expect(try await store.touchProofs(rideID: ride.id).count == 1)
    }

    @Test(arguments: StoreKind.available)
    func purgeErasesLocationsOfFinishedRidesOnly(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let completed = try await Self.arrivedRide(store, cast)
        _ = try await store.transition(rideID: completed.id, to: .confirmed, by: "operator", detail: nil, idempotency: nil)
        _ = try await store.transition(rideID: completed.id, to: .completed, by: cast.driver.id, detail: nil, idempotency: nil)
        let active = try await Self.arrivedRide(store, cast)
        let cancelledRide = try await Self.arrivedRide(store, cast)
        _ = try await store.transition(rideID: cancelledRide.id, to: .cancelled, by: cast.passenger.id, detail: nil, idempotency: nil)
        let withdrawn = try await store.createRideRequest(
            NewRideRequest(passengerName: "Ana", pickup: "Elm St 5", dropoff: "Museum", accessibilityNotes: "guide dog"),
            passengerID: cast.passenger.id, idempotency: nil)
        _ = try await store.cancelRideRequest(id: withdrawn.id, by: cast.passenger.id, idempotency: nil)
        let open = try await cast.request(store)

        // Everything ended just now: a retention that reaches back an hour keeps it all.
        #expect(try await store.purgeLocations(finishedBefore: Date().addingTimeInterval(-3600)) == 0)
        #expect(try await store.purgeLocations(finishedBefore: Date().addingTimeInterval(3600)) == 3)
        for request in [completed.requestID, cancelledRide.requestID, withdrawn.id] {
            let purged = try #require(try await store.rideRequest(id: request))
            #expect(purged.pickup == "" && purged.dropoff == "" && purged.accessibilityNotes == nil)
            // The name typed on the request is a copy of personal data too (issue 13).
            #expect(purged.passengerName == "", "locations, notes and the typed name are erased")
        }
        for request in [active.requestID, open.id] {
            let kept = try await store.rideRequest(id: request)
            #expect(kept?.pickup == "Main St 1" && kept?.passengerName == "Ana")
        }
        // Finished rides lose their keys; a ride under way keeps its own.
        #expect(try await store.ride(id: completed.id)?.key.isEmpty == true)
        #expect(try await store.ride(id: cancelledRide.id)?.key.isEmpty == true)
        #expect(try await store.ride(id: active.id)?.key.isEmpty == false)
        #expect(try await store.purgeLocations(finishedBefore: Date().addingTimeInterval(3600)) == 0, "purged once, counted once")
        #expect(try await store.ride(id: completed.id)?.state == .completed, "the ride and its history stay")
    }

    /// Issue 36, finding 10: ten copies of one proof, times shifted 0–9 ms, recorded at once:
    /// the resend check and the write are one transaction, so exactly one is accepted (the
    /// route's check before the write let 8 of 10 through).
    @Test(arguments: StoreKind.available)
    func concurrentShiftedCopiesInTheStoreRecordExactlyOne(kind: StoreKind) async throws {
        let store = try await Self.shared(kind)
        let cast = try await Cast(store)
        let ride = try await Self.arrivedRide(store, cast)
        let base = Date(timeIntervalSince1970: 1_767_225_600)
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for shift in 0..<10 {
                let at = base.addingTimeInterval(Double(shift) / 1000)
                let proof = VerifiedTouchProof(rideID: ride.id, side: .passenger, accountID: cast.passenger.id, slot: 58_840_853, uuid: UUID(),
                                               major: 1, minor: 2, peakRssiDbm: -42, samples: 9, observedAt: at, receivedAt: at.addingTimeInterval(1),
                                               observedFrom: at.addingTimeInterval(-2), observedUntil: at)
                group.addTask {
                    do {
                        _ = try await store.recordTouchProof(proof, policy: .mutual, idempotency: nil)
                        return true
                    } catch StoreError.replayed {
                        return false
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1, "\(outcomes)")
        #expect(try await store.touchProofs(rideID: ride.id).count == 1)
        // A later touch (its window ends more than the tolerance past the first's) is new.
        let later = VerifiedTouchProof(rideID: ride.id, side: .passenger, accountID: cast.passenger.id, slot: 58_840_853, uuid: UUID(),
                                       major: 1, minor: 2, peakRssiDbm: -42, samples: 9, observedAt: base.addingTimeInterval(5),
                                       receivedAt: base.addingTimeInterval(6))
        _ = try await store.recordTouchProof(later, policy: .mutual, idempotency: nil)
        #expect(try await store.touchProofs(rideID: ride.id).count == 2)
    }
}
