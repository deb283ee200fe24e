import Logging
import PostgresNIO

/// The PostgreSQL schema, in order, recorded in `schema_migration` (the same shape as
/// SQLiteMigrations, whose steps these mirror). Never edit a shipped step; add one.
enum PostgresMigrations {
    static let all: SchemaMigrations<[String]> = {
        var m = SchemaMigrations<[String]>()
        for (name, sql) in steps { m.register(name, sql) }
        return m
    }()

    private static let steps: [(name: String, sql: [String])] = [
        ("v1", [
            """
            CREATE TABLE account (
                id text PRIMARY KEY,
                role text NOT NULL CHECK (role IN ('passenger','driver','dispatcher','admin')),
                display_name text NOT NULL,
                vehicle text,
                created_at timestamptz NOT NULL)
            """,
            """
            CREATE TABLE api_token (
                id text PRIMARY KEY,
                account_id text NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                secret_hash bytea NOT NULL UNIQUE,
                created_at timestamptz NOT NULL,
                revoked_at timestamptz)
            """,
            """
            CREATE TABLE ride_request (
                id text PRIMARY KEY,
                passenger_id text NOT NULL REFERENCES account(id),
                passenger_name text NOT NULL,
                pickup text NOT NULL,
                dropoff text NOT NULL,
                accessibility_notes text,
                status text NOT NULL,
                created_at timestamptz NOT NULL,
                ride_id text)
            """,
            "CREATE INDEX ride_request_open ON ride_request (status, created_at)",
            "CREATE INDEX ride_request_passenger ON ride_request (passenger_id)",
            """
            CREATE TABLE ride (
                id text PRIMARY KEY,
                request_id text NOT NULL UNIQUE REFERENCES ride_request(id),
                passenger_id text NOT NULL REFERENCES account(id),
                driver_id text NOT NULL REFERENCES account(id),
                state text NOT NULL,
                key bytea NOT NULL,
                created_at timestamptz NOT NULL,
                state_changed_at timestamptz NOT NULL)
            """,
            "CREATE INDEX ride_state ON ride (state, created_at)",
            "CREATE INDEX ride_passenger ON ride (passenger_id)",
            "CREATE INDEX ride_driver ON ride (driver_id)",
            """
            CREATE TABLE ride_event (
                id bigserial PRIMARY KEY,
                ride_id text NOT NULL REFERENCES ride(id),
                sequence integer NOT NULL,
                state text NOT NULL,
                actor_id text NOT NULL,
                at timestamptz NOT NULL,
                detail text,
                UNIQUE (ride_id, sequence))
            """,
            """
            CREATE TABLE idempotency (
                account_id text NOT NULL,
                key text NOT NULL,
                operation text NOT NULL,
                result bytea NOT NULL,
                created_at timestamptz NOT NULL,
                PRIMARY KEY (account_id, key))
            """,
        ]),
        // Request-level events (see the SQLite migration v2) and token expiry.
        ("v2", [
            "ALTER TABLE api_token ADD COLUMN expires_at timestamptz",
            "ALTER TABLE ride_event ADD COLUMN request_id text REFERENCES ride_request(id)",
            "UPDATE ride_event e SET request_id = r.request_id FROM ride r WHERE r.id = e.ride_id",
            "ALTER TABLE ride_event ALTER COLUMN request_id SET NOT NULL",
            "ALTER TABLE ride_event ALTER COLUMN ride_id DROP NOT NULL",
            "ALTER TABLE ride_event DROP CONSTRAINT ride_event_ride_id_sequence_key",
            "ALTER TABLE ride_event ADD CONSTRAINT ride_event_request_sequence UNIQUE (request_id, sequence)",
            "CREATE INDEX ride_event_ride ON ride_event (ride_id)",
            // Listings walk in (created_at, id) order and stop after a page (see SQLite v2).
            "CREATE INDEX ride_created ON ride (created_at, id)",
            "CREATE INDEX ride_request_created ON ride_request (created_at, id)",
            """
            INSERT INTO ride_event (request_id, ride_id, sequence, state, actor_id, at)
            SELECT id, NULL, 1, 'requested', passenger_id, created_at FROM ride_request WHERE status = 'open' ORDER BY created_at, id
            """,
        ]),
        // Touch proofs and location retention (see the SQLite migration v3).
        ("v3", [
            """
            CREATE TABLE touch_proof (
                id bigserial PRIMARY KEY,
                ride_id text NOT NULL REFERENCES ride(id),
                side text NOT NULL CHECK (side IN ('passenger','driver')),
                account_id text NOT NULL REFERENCES account(id),
                slot bigint NOT NULL,
                uuid text NOT NULL,
                major integer NOT NULL,
                minor integer NOT NULL,
                peak_rssi_dbm double precision NOT NULL,
                samples integer NOT NULL,
                observed_at timestamptz NOT NULL,
                received_at timestamptz NOT NULL,
                UNIQUE (ride_id, side, slot, observed_at))
            """,
            "CREATE INDEX touch_proof_received ON touch_proof (ride_id, received_at)",
            "ALTER TABLE ride_request ADD COLUMN locations_purged_at timestamptz",
        ]),
        // Idempotency results expire; the hourly purge deletes by age.
        ("v4", ["CREATE INDEX idempotency_created ON idempotency (created_at)"]),
        // Each proof's observation window (see the SQLite migration v5-touch-windows).
        ("v5-touch-windows", [
            "ALTER TABLE touch_proof ADD COLUMN observed_from timestamptz",
            "ALTER TABLE touch_proof ADD COLUMN observed_until timestamptz",
            "UPDATE touch_proof SET observed_from = observed_at, observed_until = observed_at",
            "ALTER TABLE touch_proof ALTER COLUMN observed_from SET NOT NULL",
            "ALTER TABLE touch_proof ALTER COLUMN observed_until SET NOT NULL",
        ]),
        // Writers no longer take one lock each until commit to append events in id order:
        // they stage events here, and a short sequencing transaction moves what has committed
        // into ride_event under the lock (PostgresStore+EventSequencing.swift).
        ("v6-event-sequence", [
            """
            CREATE TABLE ride_event_pending (
                pending_id bigserial PRIMARY KEY,
                request_id text NOT NULL REFERENCES ride_request(id),
                ride_id text REFERENCES ride(id),
                sequence integer NOT NULL,
                state text NOT NULL,
                actor_id text NOT NULL,
                at timestamptz NOT NULL,
                detail text,
                UNIQUE (request_id, sequence))
            """,
        ]),
        // Journeys (see the SQLite migration v7-journeys).
        ("v7-journeys", [
            "ALTER TABLE ride_request ADD COLUMN short_code text",
            "CREATE INDEX ride_request_short_code ON ride_request (short_code, created_at)",
            "ALTER TABLE ride ADD COLUMN short_code text",
            "ALTER TABLE ride ADD COLUMN eta_minutes integer",
            "ALTER TABLE ride ADD COLUMN eta_given_at timestamptz",
            "CREATE INDEX ride_driver_state ON ride (driver_id, state)",
            """
            CREATE TABLE sign_in_code (
                id text PRIMARY KEY,
                account_id text NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                code_hash bytea NOT NULL UNIQUE,
                issued_by text NOT NULL,
                created_at timestamptz NOT NULL,
                expires_at timestamptz NOT NULL,
                used_at timestamptz)
            """,
            "CREATE INDEX sign_in_code_account ON sign_in_code (account_id, created_at)",
            """
            CREATE TABLE saved_place (
                account_id text NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                name text NOT NULL,
                address text NOT NULL,
                created_at timestamptz NOT NULL,
                PRIMARY KEY (account_id, name))
            """,
        ]),
        // Events that change no state (see the SQLite migration v8-locator).
        ("v8-locator", [
            "ALTER TABLE ride_event ADD COLUMN kind text NOT NULL DEFAULT 'state_changed'",
            "ALTER TABLE ride_event_pending ADD COLUMN kind text NOT NULL DEFAULT 'state_changed'",
        ]),
        // A driver's car as colour, make, model and plate (see the SQLite migration
        // v9-vehicle-parts: the same split of today's text, as regular expressions).
        ("v9-vehicle-parts", vehicleParts),
        // Issue 25: the device a token was signed in on (see the SQLite migration of that name).
        ("v10-token-device-names", ["ALTER TABLE api_token ADD COLUMN device_name text"]),
        // Issue 28: each ride transition one statement, one round trip (TransitionFunctions;
        // a no-op step of the same name on SQLite).
        ("transition-functions-1", TransitionFunctions.v1),
        // Issue 26: the language an account chose (see the SQLite migration of that name).
        ("v11-account-language", [
            "CREATE TABLE account_language (account_id text PRIMARY KEY REFERENCES account(id) ON DELETE CASCADE, language text NOT NULL)",
        ]),
        // Issue 28: each transition function called by a procedure that commits before it
        // answers, so an answer never precedes its durable commit (TransitionProcedures; a
        // no-op step of the same name on SQLite).
        ("transition-functions-2", TransitionProcedures.v2),
        // Issue 28: the sequencing run as a procedure that commits before it answers.
        ("transition-functions-3", TransitionProcedures.v3),
        // Issue 28: the locator and a ride note answer their sequenced event in one CALL.
        ("transition-functions-4", TransitionProcedures.v4),
        // A passenger's message takes an Idempotency-Key: a ride note whose answer is stored in
        // its transaction, still in one CALL (TransitionProcedures.v5; a no-op step of the same
        // name on SQLite, whose `idempotency` table serves it as it is).
        ("transition-functions-keyed-notes", TransitionProcedures.v5),
        // Issue 37 (9): a driver with a passenger on board is busy (DriverOccupancy; a no-op
        // step of the same name on SQLite, whose accept reads `RideState.occupiesDriver`).
        ("driver-busy-while-confirmed", DriverOccupancy.v6),
        // Issue 36 (10): a touch proof's resend check in its recording's transaction
        // (TouchProofResend; on SQLite the check is in the write itself, a no-op step).
        ("touch-proof-resend-check", TouchProofResend.v7),
        // Issue 36 (6): each ride counts its ride-word attempts (see the SQLite migration).
        ("ride-word-attempts", ["ALTER TABLE ride ADD COLUMN ride_word_attempts integer NOT NULL DEFAULT 0"]),
        // Issue 36 (4): the index of the SQLite migration, and a ride note with its limits
        // (BoundedRideNotes).
        ("bounded-ride-notes", BoundedRideNotes.v7),
        // Issue 35: each party's latest position, deleted at the ride's end (RidePositionsSchema).
        ("ride-positions", RidePositionsSchema.v1),
        // Issue 36 (4): per-ride caps on locator requests and touch proofs (RideHistoryCaps).
        ("ride-history-caps", RideHistoryCaps.v1),
        // Issue 39: less work per transition — the JSON builders' time helper inlined, the
        // staging table's redundant foreign keys dropped (TransitionWork).
        ("transition-work", TransitionWork.v1),
        // Issue 39: the move and accept procedures without their nested PL/pgSQL calls, same
        // answers (FoldedTransitions; a no-op step of the same name on SQLite).
        ("folded-transitions", FoldedTransitions.v8),
        // Issue 39: those procedures sequence their own event when the sequencing lock is free
        // (SelfSequencingTransitions; a no-op step of the same name on SQLite).
        ("self-sequencing-transitions", FoldedTransitions.v9),
        // Issue 39: two indexes that are the first column of another (see the SQLite migration).
        ("redundant-indexes", ["DROP INDEX IF EXISTS ride_driver", "DROP INDEX IF EXISTS ride_event_ride"]),
    ]

    /// `Vehicle(parsing:)` in SQL: at most `Vehicle.maxSplitWords` words of letters, digits,
    /// hyphens and apostrophes separated by spaces or tabs; a leading colour, then a make and a
    /// model (the rest, single-spaced), or a colour and a model; else a make and a model.
    private static var vehicleParts: [String] {
        let word = "[[:alpha:][:digit:]''-]+", gap = "[ \\t]+"
        let text = "btrim(vehicle, E' \\t')"
        let splittable = "\(text) ~ '^\(word)(\(gap)\(word)){0,\(Vehicle.maxSplitWords - 1)}$'"
        let colour = Vehicle.colourPattern
        func split(_ pattern: String, _ set: String, _ extra: String = "") -> String {
            """
            UPDATE account SET \(set)
            FROM (SELECT id, regexp_match(\(text), '\(pattern)', 'i') AS m FROM account
                  WHERE vehicle IS NOT NULL AND \(splittable)) p
            WHERE account.id = p.id AND p.m IS NOT NULL \(extra)
            """
        }
        return [
            """
            ALTER TABLE account ADD COLUMN vehicle_colour text, ADD COLUMN vehicle_make text,
                ADD COLUMN vehicle_model text, ADD COLUMN vehicle_plate text
            """,
            split("^\(colour)\(gap)(\(word))\(gap)(\(word)(\(gap)\(word))*)$",
                  "vehicle_colour = p.m[1], vehicle_make = p.m[2], vehicle_model = regexp_replace(p.m[3], '\(gap)', ' ', 'g')"),
            split("^\(colour)\(gap)(\(word))$", "vehicle_colour = p.m[1], vehicle_model = p.m[2]"),
            split("^(\(word))\(gap)(\(word)(\(gap)\(word))*)$",
                  "vehicle_make = p.m[1], vehicle_model = regexp_replace(p.m[2], '\(gap)', ' ', 'g')",
                  "AND account.vehicle_model IS NULL"),
        ]
    }

    /// Whether the database records every migration this binary has (one read, no lock); throws
    /// `SchemaTooNew` when it records one this binary does not know, as `migrate` would.
    static func isCurrent(_ client: PostgresClient, database: String, logger: Logger) async throws -> Bool {
        let exists = try await client.query("SELECT to_regclass('schema_migration') IS NOT NULL", logger: logger)
            .collect().first?.decode(Bool.self) ?? false
        guard exists else { return false }
        var applied = Set<String>()
        for try await name in try await client.query("SELECT name FROM schema_migration", logger: logger).decode(String.self) {
            applied.insert(name)
        }
        return try all.pending(applied: applied, database: database).isEmpty
    }

    /// Applies what is missing in one transaction, after refusing a database a newer binary
    /// migrated (it records a migration this list does not have).
    static func migrate(_ client: PostgresClient, database: String, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { conn in
            // One migrator at a time, even with several servers starting together.
            try await conn.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.migration))", logger: logger)
            let version = try await conn.query("SELECT current_setting('server_version_num')::int", logger: logger)
                .collect().first?.decode(Int.self) ?? 0
            try PostgresTooOld.check(serverVersionNum: version)
            try await conn.query("CREATE TABLE IF NOT EXISTS schema_migration (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())", logger: logger)
            var applied = Set<String>()
            for try await name in try await conn.query("SELECT name FROM schema_migration", logger: logger).decode(String.self) {
                applied.insert(name)
            }
            for step in try all.pending(applied: applied, database: database) {
                for sql in step.step {
                    try await conn.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                }
                try await conn.query("INSERT INTO schema_migration (name) VALUES (\(step.name))", logger: logger)
            }
        }
    }
}

/// The server is older than the schema needs: the ride transitions are procedures with OUT
/// parameters that commit before they answer (`TransitionProcedures`), which PostgreSQL has
/// from version 14. Said before anything is created, instead of a syntax error mid-migration.
public struct PostgresTooOld: Error, Equatable, Sendable, CustomStringConvertible {
    public static let minimum = 140000
    /// `server_version_num`, e.g. 130012 for 13.12.
    public var serverVersionNum: Int

    public var description: String {
        "PostgreSQL \(serverVersionNum / 10000).\(serverVersionNum % 10000) is too old for ridebeacon, which needs PostgreSQL 14 or later"
    }

    static func check(serverVersionNum: Int) throws {
        guard serverVersionNum >= minimum else { throw PostgresTooOld(serverVersionNum: serverVersionNum) }
    }
}
