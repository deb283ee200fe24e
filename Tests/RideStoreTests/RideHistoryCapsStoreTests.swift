import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 36 (4)'s rest: locator requests and touch proofs (each a `touch_observed` event) have a
/// cap per ride on every store, checked where they are written, so copies sent at once cannot
/// pass it together.
@Suite("Store contract: per-ride caps on locator requests and touch proofs")
struct RideHistoryCapsStoreTests {
    @Test(arguments: StoreKind.available)
    func locatorRequestsStopAtTheCapEvenWhenSentAtOnce(kind: StoreKind) async throws {
        let store = try await TouchProofStoreTests.shared(kind)
        let cast = try await Cast(store)
        let ride = try await TouchProofStoreTests.arrivedRide(store, cast)
        let cap = RideHistoryLimits.locatorRequestsPerRide
        let base = TouchProofStoreTests.base
        for i in 0..<(cap - 5) {
            let recording = try await store.requestLocator(rideID: ride.id, by: cast.passenger.id, at: base.addingTimeInterval(Double(i)), minimumInterval: 0)
            guard case .recorded = recording else { Issue.record("request \(i): \(recording)"); return }
        }
        // Ten at once for the last five places, all stamped alike: with `at`s that differ, one
        // committed after a later one reads as asked "too soon" (a negative interval).
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        let recording = try await store.requestLocator(rideID: ride.id, by: cast.passenger.id,
                                                                       at: base.addingTimeInterval(Double(cap)), minimumInterval: 0)
                        if case .recorded = recording { return true }
                        return false
                    } catch StoreError.limitReached(let message) {
                        #expect(message == "this ride already has \(cap) locator requests; it takes no more")
                        return false
                    } catch {
                        Issue.record("\(error)")
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 5)
        let requests = try await store.events(rideID: ride.id, after: 0).filter { $0.kind == .locatorRequested }
        #expect(requests.count == cap)
    }

    @Test(arguments: StoreKind.available)
    func touchProofsStopAtTheCapEvenWhenSentAtOnce(kind: StoreKind) async throws {
        let store = try await TouchProofStoreTests.shared(kind)
        let cast = try await Cast(store)
        let ride = try await TouchProofStoreTests.arrivedRide(store, cast)
        let cap = RideHistoryLimits.touchProofsPerRide
        // The passenger's alone never confirm under the mutual policy; each its own slot.
        for i in 0..<(cap - 4) {
            _ = try await store.recordTouchProof(TouchProofStoreTests.proof(ride, .passenger, receivedAfter: Double(i), slot: 1_000 + Int64(i)),
                                                 policy: .mutual, idempotency: nil)
        }
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<10 {
                group.addTask {
                    do {
                        _ = try await store.recordTouchProof(TouchProofStoreTests.proof(ride, .passenger, receivedAfter: Double(cap + i),
                                                                                       slot: 5_000 + Int64(i)),
                                                             policy: .mutual, idempotency: nil)
                        return true
                    } catch StoreError.limitReached(let message) {
                        #expect(message == "this ride already has \(cap) touch proofs; it takes no more")
                        return false
                    } catch {
                        Issue.record("\(error)")
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(accepted.filter { $0 }.count == 4)
        #expect(try await store.touchProofs(rideID: ride.id).count == cap)
        #expect(try await store.events(rideID: ride.id, after: 0).filter { $0.kind == .touchObserved }.count == cap)
        #expect(try await store.ride(id: ride.id)?.state == .arrived)
    }
}
