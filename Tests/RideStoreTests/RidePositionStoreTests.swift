import Foundation
import GRDB
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 35 in the store, on both stores: one latest position per (ride, party), written only
/// while the ride is accepted or arrived, and deleted in the transaction that confirms, cancels
/// or completes the ride, also when a write races that transition.
@Suite("Store contract: ride positions")
struct RidePositionStoreTests {
    static func fix(_ latitude: Double, accuracy: Double = 8, course: Double? = nil) -> RidePosition {
        RidePosition(latitude: latitude, longitude: -0.1, accuracyMeters: accuracy, courseDegrees: course,
                     recordedAt: Date(timeIntervalSince1970: 1_800_000_000.123))
    }

    static func acceptedRide(_ store: any Store) async throws -> (RideRecord, Cast) {
        let cast = try await Cast(store)
        return (try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil), cast)
    }

    @Test(arguments: StoreKind.available)
    func keepsOnlyEachPartysLatest(kind: StoreKind) async throws {
        let (store, _) = try await kind.makeStore()
        let (ride, _) = try await Self.acceptedRide(store)
        #expect(try await store.position(rideID: ride.id, party: .driver) == nil)
        #expect(try await store.recordPosition(rideID: ride.id, party: .driver, Self.fix(51.5, course: 90)) == .recorded)
        #expect(try await store.recordPosition(rideID: ride.id, party: .driver, Self.fix(51.6, accuracy: 4.5, course: 271.25)) == .recorded)
        #expect(try await store.recordPosition(rideID: ride.id, party: .passenger, Self.fix(51.7)) == .recorded)
        #expect(try await store.position(rideID: ride.id, party: .driver) == Self.fix(51.6, accuracy: 4.5, course: 271.25),
                "the second write replaced the first, exactly (milliseconds kept)")
        #expect(try await store.positions(rideID: ride.id) == RidePositions(passenger: Self.fix(51.7), driver: Self.fix(51.6, accuracy: 4.5, course: 271.25)))
        await #expect(throws: StoreError.self) { try await store.recordPosition(rideID: "no-such-ride", party: .driver, Self.fix(1)) }
        await store.close()
    }

    /// Each end state deletes both parties' positions with the transition, and a write after
    /// the end is refused with the state and stores nothing.
    @Test(arguments: StoreKind.available, [RideState.confirmed, .cancelled, .completed])
    func theEndDeletesThemAndRefusesMore(kind: StoreKind, end: RideState) async throws {
        let (store, _) = try await kind.makeStore()
        let (accepted, cast) = try await Self.acceptedRide(store)
        let ride = try await store.transition(rideID: accepted.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
        #expect(try await store.recordPosition(rideID: ride.id, party: .driver, Self.fix(51.5)) == .recorded)
        #expect(try await store.recordPosition(rideID: ride.id, party: .passenger, Self.fix(51.6)) == .recorded)
        // A second ride's positions stay: the end deletes only its own ride's.
        let (other, _) = try await Self.acceptedRide(store)
        #expect(try await store.recordPosition(rideID: other.id, party: .passenger, Self.fix(40)) == .recorded)
        let path: [RideState] = switch end {
        case .confirmed: [.confirmed]
        case .completed: [.confirmed, .completed]
        default: [.cancelled]
        }
        for state in path {
            _ = try await store.transition(rideID: ride.id, to: state, by: state == .cancelled ? cast.passenger.id : cast.driver.id,
                                           detail: nil, idempotency: nil)
        }
        #expect(try await store.positions(rideID: ride.id) == RidePositions(passenger: nil, driver: nil))
        #expect(try await store.recordPosition(rideID: ride.id, party: .passenger, Self.fix(51.7)) == .wrongState(end))
        #expect(try await store.positions(rideID: ride.id) == RidePositions(passenger: nil, driver: nil))
        #expect(try await store.position(rideID: other.id, party: .passenger) == Self.fix(40))
        await store.close()
    }

    @Test(arguments: StoreKind.available)
    func nothingBeforeAcceptance(kind: StoreKind) async throws {
        // A ride exists only from acceptance on; a requested one has none to write to.
        let (store, _) = try await kind.makeStore()
        let cast = try await Cast(store)
        let request = try await cast.request(store)
        await #expect(throws: StoreError.self) { try await store.recordPosition(rideID: request.id, party: .passenger, Self.fix(1)) }
        await store.close()
    }

    /// Writes racing the cancellation: whichever goes first, nothing is left behind.
    @Test(arguments: StoreKind.available)
    func aWriteRacingTheEndLeavesNothing(kind: StoreKind) async throws {
        let (store, _) = try await kind.makeStore()
        for _ in 0..<5 {
            let (ride, cast) = try await Self.acceptedRide(store)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        _ = try await store.recordPosition(rideID: ride.id, party: index % 2 == 0 ? .driver : .passenger, Self.fix(Double(index)))
                    }
                }
                group.addTask {
                    _ = try await store.transition(rideID: ride.id, to: .cancelled, by: cast.passenger.id, detail: nil, idempotency: nil)
                }
                try await group.waitForAll()
            }
            #expect(try await store.positions(rideID: ride.id) == RidePositions(passenger: nil, driver: nil))
        }
        await store.close()
    }

    /// The retention purge removes a leftover (here planted past the trigger) and any position
    /// received before the cutoff; it keeps a fresh one of a ride still under way.
    @Test(arguments: StoreKind.available)
    func theRetentionPurgeRemovesLeftovers(kind: StoreKind) async throws {
        let (store, location) = try await kind.makeStore()
        let (ended, cast) = try await Self.acceptedRide(store)
        let (live, _) = try await Self.acceptedRide(store)
        #expect(try await store.recordPosition(rideID: ended.id, party: .driver, Self.fix(1)) == .recorded)
        #expect(try await store.recordPosition(rideID: live.id, party: .driver, Self.fix(2)) == .recorded)
        _ = try await store.transition(rideID: ended.id, to: .cancelled, by: cast.passenger.id, detail: nil, idempotency: nil)
        // A leftover the trigger never saw (a database restored from before the migration, say).
        let now = Date().timeIntervalSince1970
        if let sqlite = store as? SQLiteStore {
            try await sqlite.write { db in
                try db.execute(sql: """
                    INSERT INTO ridePosition (rideID, party, latitude, longitude, accuracyMeters, recordedAt, receivedAt)
                    VALUES (?, 'driver', 1, 1, 5, ?, ?)
                    """, arguments: [ended.id, now, now])
            }
        } else {
            try await TestPostgres.execute("""
                INSERT INTO ride_position (ride_id, party, latitude, longitude, accuracy_meters, recorded_at, received_at)
                VALUES ('\(ended.id)', 'driver', 1, 1, 5, now(), now())
                """, at: location)
        }
        #expect(try await store.position(rideID: ended.id, party: .driver) != nil, "the leftover is planted")
        _ = try await store.purgeLocations(finishedBefore: Date().addingTimeInterval(-3600))
        #expect(try await store.position(rideID: ended.id, party: .driver) == nil)
        #expect(try await store.position(rideID: live.id, party: .driver) == Self.fix(2), "a fresh position of a ride under way stays")
        _ = try await store.purgeLocations(finishedBefore: Date().addingTimeInterval(60))
        #expect(try await store.position(rideID: live.id, party: .driver) == nil, "one received before the cutoff goes")
        await store.close()
    }
}
