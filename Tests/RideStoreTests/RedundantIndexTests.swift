import Foundation
import GRDB
import PostgresNIO
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 39, migration `redundant-indexes`: the index on a ride's driver and the one on an
/// event's ride are gone on both stores (each was the first column of a wider index, and every
/// write paid for both), and the lookups they served use the wider index instead.
@Suite("Redundant indexes dropped")
struct RedundantIndexTests {
    @Test func sqliteLooksUpByTheWiderIndexes() async throws {
        let (opened, _) = try await StoreKind.sqlite.makeStore(prefix: "rb_indexes")
        let store = try #require(opened as? SQLiteStore)
        let (indexes, plans) = try await store.read { db in
            let indexes = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('ride', 'rideEvent')")
            let plans = try ["SELECT id FROM ride WHERE driverID = 'd'", "SELECT id FROM rideEvent WHERE rideID = 'r'"].map { query in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query).map { $0["detail"] as String? ?? "" }.joined(separator: "; ")
            }
            return (indexes, plans)
        }
        #expect(!indexes.contains("ride_driver") && !indexes.contains("rideEvent_ride"))
        #expect(indexes.isSuperset(of: ["ride_driver_state", "rideEvent_ride_kind"]))
        #expect(plans[0].contains("ride_driver_state"), "\(plans[0])")
        #expect(plans[1].contains("rideEvent_ride_kind"), "\(plans[1])")
        await store.close()
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func postgresLooksUpByTheWiderIndexes() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_indexes")
        let connection = try await TestPostgres.connect(at: location)
        let names = try await connection.query("SELECT indexname FROM pg_indexes WHERE tablename IN ('ride', 'ride_event')", logger: TestPostgres.logger)
            .collect().map { try $0.decode(String.self) }
        #expect(!names.contains("ride_driver") && !names.contains("ride_event_ride"))
        #expect(Set(names).isSuperset(of: ["ride_driver_state", "ride_event_ride_kind"]))
        // With sequential scans priced out, as on a table of many rides.
        _ = try await connection.query("SET enable_seqscan = off", logger: TestPostgres.logger)
        for (query, index) in [("SELECT id FROM ride WHERE driver_id = 'd'", "ride_driver_state"),
                               ("SELECT id FROM ride_event WHERE ride_id = 'r'", "ride_event_ride_kind")] {
            let plan = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + query), logger: TestPostgres.logger)
                .collect().map { try $0.decode(String.self) }.joined(separator: "\n")
            #expect(plan.contains(index), "\(plan)")
        }
        try await connection.close()
        await opened.close()
    }
}
