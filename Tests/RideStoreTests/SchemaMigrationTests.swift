import Foundation
import GRDB
import RideBeaconTesting
import Testing
@testable import RideStore

/// Both stores apply one ordered list of named migrations, and refuse a database that a newer
/// binary migrated (GRDB's `hasBeenSuperseded`; the same check on PostgreSQL's `schema_migration`).
@Suite("Schema migrations")
struct SchemaMigrationTests {
    @Test func bothStoresListTheSameMigrationsInOrder() {
        #expect(SQLiteMigrations.all.names == ["v1", "v2", "v3", "v4", "v7-journeys"])
        #expect(PostgresMigrations.all.names == SQLiteMigrations.all.names)
    }

    @Test func pendingIsWhatIsMissingInOrder() throws {
        var list = SchemaMigrations<Int>()
        list.register("v1", 1)
        list.register("v2", 2)
        list.register("v3", 3)
        #expect(try list.pending(applied: [], database: "d").map(\.name) == ["v1", "v2", "v3"])
        #expect(try list.pending(applied: ["v1"], database: "d").map(\.step) == [2, 3])
        #expect(try list.pending(applied: ["v1", "v2", "v3"], database: "d").isEmpty)
        #expect(throws: SchemaTooNew(database: "d", unknownMigrations: ["v4", "v5"])) {
            try list.pending(applied: ["v1", "v2", "v3", "v5", "v4"], database: "d")
        }
    }

    @Test func sqliteRefusesASchemaNewerThanItKnows() async throws {
        let location = try StoreKind.sqliteDatabase(prefix: "rb_migrate")
        let path = String(location.dropFirst("sqlite:".count))
        let created = try SQLiteStore(path: path)
        await created.close()
        // What a newer binary leaves behind: a migration this one has never heard of.
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        try queue.close()
        #expect(throws: SchemaTooNew(database: location, unknownMigrations: ["v99"])) { try SQLiteStore(path: path) }
        let error = await #expect(throws: SchemaTooNew.self) { try await StoreLocation.open(location) }
        #expect(error?.description.contains("newer than this ridebeacon knows (migrations v99)") == true)
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func postgresRefusesASchemaNewerThanItKnows() async throws {
        let (store, location) = try await StoreKind.postgres.makeStore(prefix: "rb_migrate")
        await store.close()
        try await TestPostgres.execute("INSERT INTO schema_migration (name) VALUES ('v99')", at: location)
        let error = await #expect(throws: SchemaTooNew.self) { try await StoreLocation.open(location) }
        #expect(error?.unknownMigrations == ["v99"])
        #expect(error?.description.contains("newer than this ridebeacon knows") == true)
        // Refused before anything changed: the newer binary's record is still the only extra one.
        let again = try PostgresStore(url: location)
        await #expect(throws: SchemaTooNew.self) { try await again.migrate() }
        await again.close()
    }
}
