import Foundation
import PostgresNIO
import RideBeaconTesting
import Testing
@testable import RideStore

/// The pool's timers are short (`PoolTimers`): connections opened for a burst close again soon
/// after it, down to the minimum kept warm; ones the database closed are replaced without
/// failing a request.
@Suite struct PoolTimersTests {
    @Test(.enabled(if: StoreKind.postgresURL != nil, "needs RIDEBEACON_TEST_POSTGRES_URL"))
    func connectionsOpenedForABurstCloseAfterTheIdleTimeout() async throws {
        let location = try await StoreKind.postgres.makeDatabase(prefix: "rb_pool")
        let store = try PostgresStore(url: location, operationTimeout: StoreKind.testOperationTimeout)
        let burst = PoolTimers.minimumConnections + 4
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<burst {
                group.addTask { _ = try await store.client.query("SELECT pg_sleep(0.5)").collect() }
            }
            try await group.waitForAll()
        }
        let afterBurst = try await backends(store)
        #expect(afterBurst > PoolTimers.minimumConnections, "the burst of \(burst) overlapping queries opened only \(afterBurst) connections")

        // Bounded generously (the timeout is 10 s; a loaded machine may be slow to close).
        var now = afterBurst
        for _ in 0..<120 where now > PoolTimers.minimumConnections {
            try await Task.sleep(for: .milliseconds(500))
            now = try await backends(store)
        }
        #expect(now <= PoolTimers.minimumConnections, "\(now) connections still open 60 s after the burst (idle timeout \(PoolTimers.idleTimeout))")
        await store.close()
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil, "needs RIDEBEACON_TEST_POSTGRES_URL"))
    func idleConnectionsTheDatabaseClosedAreReplacedWithoutAFailedRequest() async throws {
        let location = try await StoreKind.postgres.makeDatabase(prefix: "rb_pool")
        let store = try PostgresStore(url: location, operationTimeout: StoreKind.testOperationTimeout)
        let warm = PoolTimers.minimumConnections
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<warm {
                group.addTask { _ = try await store.client.query("SELECT pg_sleep(0.2)").collect() }
            }
            try await group.waitForAll()
        }
        // Every other backend of this database goes, as in a restart or an operator's kill.
        let killed = try await store.client.query("""
            SELECT count(*)::int8 FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()) AS gone
            """).collect().first?.decode(Int.self) ?? 0
        #expect(killed >= 1, "no idle connection was there to close")
        try await Task.sleep(for: .milliseconds(300))
        for round in 0..<(warm * 2) {
            let rows = try await store.client.query("SELECT 1::int8").collect()
            #expect(try rows.first?.decode(Int.self) == 1, "query \(round) after the kill")
        }
        await store.close()
    }

    /// Backends connected to the store's database (the counting query's own included).
    private func backends(_ store: PostgresStore) async throws -> Int {
        let rows = try await store.client.query("SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database()").collect()
        return try rows.first?.decode(Int.self) ?? 0
    }
}
