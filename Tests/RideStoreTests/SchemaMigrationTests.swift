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
        #expect(SQLiteMigrations.all.names == ["v1", "v2", "v3", "v4", "v5-touch-windows", "v6-event-sequence", "v7-journeys", "v8-locator", "v9-vehicle-parts",
                                             "v10-token-device-names", "transition-functions-1", "v11-account-language",
                                             "transition-functions-2", "transition-functions-3", "transition-functions-4",
                                             "transition-functions-keyed-notes", "driver-busy-while-confirmed",
                                             "touch-proof-resend-check", "ride-word-attempts", "bounded-ride-notes", "ride-positions",
                                             "ride-history-caps", "transition-work", "folded-transitions",
                                             "self-sequencing-transitions", "redundant-indexes"])
        #expect(PostgresMigrations.all.names == SQLiteMigrations.all.names)
    }

    /// Issue 38: `transition-functions-1` takes its advisory-lock keys from `AdvisoryLock` (their
    /// one definition) instead of numbers; databases have run its text, so the text must stay
    /// exactly what shipped: 13 statements whose FNV-1a (over the statements joined by "\n;\n")
    /// was computed from the shipped file before the keys were interpolated.
    @Test func frozenTransitionFunctionsKeepTheirShippedText() {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in TransitionFunctions.v1.joined(separator: "\n;\n").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        #expect(TransitionFunctions.v1.count == 13)
        #expect(hash == 15_584_963_503_620_256_831, "a shipped migration's text changed; add a new migration instead")
        let text = TransitionFunctions.v1.joined()
        #expect(text.contains("pg_advisory_xact_lock(\(AdvisoryLock.passengerBooking), hashtext(p_passenger))"))
        #expect(text.contains("pg_advisory_xact_lock(\(AdvisoryLock.eventSequencing));"))
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
        let error = await #expect(throws: SchemaTooNew.self) { try await StoreLocation.open(location, operationTimeout: StoreKind.testOperationTimeout) }
        #expect(error?.description.contains("newer than this ridebeacon knows (migrations v99)") == true)
    }

    /// v5-touch-windows on a database with proofs: each old proof's window is the instant it
    /// was observed at, so the mutual rule still pairs it as it did.
    @Test func touchWindowsMigrationGivesOldProofsTheirInstant() async throws {
        let location = try StoreKind.sqliteDatabase(prefix: "rb_migrate_v5")
        let path = String(location.dropFirst("sqlite:".count))
        let queue = try DatabaseQueue(path: path)
        try SQLiteMigrations.migrator.migrate(queue, upTo: "v4")
        try await queue.write { db in
            try db.execute(sql: """
                INSERT INTO account (id, role, displayName, createdAt) VALUES ('p', 'passenger', 'Ana', 0), ('d', 'driver', 'Ben', 0);
                INSERT INTO rideRequest (id, passengerID, passengerName, pickup, dropoff, status, createdAt, rideID)
                    VALUES ('q', 'p', 'Ana', 'A', 'B', 'accepted', 0, 'r');
                INSERT INTO ride (id, requestID, passengerID, driverID, state, key, createdAt, stateChangedAt)
                    VALUES ('r', 'q', 'p', 'd', 'arrived', X'00', 0, 0);
                INSERT INTO touchProof (rideID, side, accountID, slot, uuid, major, minor, peakRssiDbm, samples, observedAtMs, receivedAtMs)
                    VALUES ('r', 'passenger', 'p', 5, '00000000-0000-0000-0000-000000000001', 1, 2, -40, 9, 1767225600250, 1767225601000);
                """)
        }
        try queue.close()
        let store = try SQLiteStore(path: path)
        let proofs = try await store.touchProofs(rideID: "r")
        await store.close()
        let observedAt = Date(timeIntervalSince1970: 1_767_225_600.25)
        #expect(proofs.count == 1)
        #expect(proofs.first?.observedFrom == observedAt && proofs.first?.observedUntil == observedAt)
        // Filled in by the migration, not only read so: the mutual rule's query uses the columns.
        let raw = try DatabaseQueue(path: path)
        let columns = try raw.read { db in try Row.fetchOne(db, sql: "SELECT observedFromMs, observedUntilMs FROM touchProof") }
        try raw.close()
        #expect(columns?["observedFromMs"] as Int64? == 1_767_225_600_250 && columns?["observedUntilMs"] as Int64? == 1_767_225_600_250)
    }

    /// The transitions are procedures with OUT parameters (PostgreSQL 14): an older server is
    /// refused in one sentence before anything is created.
    @Test func postgresOlderThan14IsRefusedByVersion() throws {
        #expect(throws: PostgresTooOld(serverVersionNum: 130012)) { try PostgresTooOld.check(serverVersionNum: 130012) }
        #expect(PostgresTooOld(serverVersionNum: 130012).description
                == "PostgreSQL 13.12 is too old for ridebeacon, which needs PostgreSQL 14 or later")
        try PostgresTooOld.check(serverVersionNum: 140000)
        try PostgresTooOld.check(serverVersionNum: 150014)
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func postgresRefusesASchemaNewerThanItKnows() async throws {
        let (store, location) = try await StoreKind.postgres.makeStore(prefix: "rb_migrate")
        await store.close()
        try await TestPostgres.execute("INSERT INTO schema_migration (name) VALUES ('v99')", at: location)
        let error = await #expect(throws: SchemaTooNew.self) { try await StoreLocation.open(location, operationTimeout: StoreKind.testOperationTimeout) }
        #expect(error?.unknownMigrations == ["v99"])
        #expect(error?.description.contains("newer than this ridebeacon knows") == true)
        // Refused before anything changed: the newer binary's record is still the only extra one.
        let again = try PostgresStore(url: location)
        await #expect(throws: SchemaTooNew.self) { try await again.migrate() }
        await again.close()
    }

    /// Issue 39 (`transition-work`): the JSON builders' time helper is STABLE, so PostgreSQL
    /// inlines it instead of running it as its own SQL function in every transaction, and staged
    /// events are checked against their ride and request once, by `ride_event`'s keys on the move.
    /// The DO block raises (and the test fails) if either is undone.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func transitionWorkIsInPlace() async throws {
        let (store, location) = try await StoreKind.postgres.makeStore(prefix: "rb_transition_work")
        await store.close()
        try await TestPostgres.execute("""
            DO $$ BEGIN
                IF (SELECT provolatile FROM pg_proc WHERE proname = 'rb_json_time_1') <> 's' THEN
                    RAISE EXCEPTION 'rb_json_time_1 is not STABLE, so it is not inlined';
                END IF;
                IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'ride_event_pending'::regclass AND contype = 'f') THEN
                    RAISE EXCEPTION 'ride_event_pending still checks its foreign keys';
                END IF;
                IF (SELECT count(*) FROM pg_constraint WHERE conrelid = 'ride_event'::regclass AND contype = 'f') <> 2 THEN
                    RAISE EXCEPTION 'ride_event lost a foreign key';
                END IF;
            END $$
            """, at: location)
    }
}
