import GRDB

/// The whole schema, in order (the same shape as PostgresMigrations). Never edit a shipped
/// migration; add one.
enum SQLiteMigrations {
    /// GRDB applies these; the list is ours so both stores register and refuse alike.
    static let all: SchemaMigrations<@Sendable (Database) throws -> Void> = {
        var m = SchemaMigrations<@Sendable (Database) throws -> Void>()
        m.register("v1") { db in
            try db.create(table: "account") { t in
                t.primaryKey("id", .text)
                t.column("role", .text).notNull()
                    .check(sql: "role IN ('passenger','driver','dispatcher','admin')")
                t.column("displayName", .text).notNull()
                t.column("vehicle", .text)
                t.column("createdAt", .double).notNull()
            }
            try db.create(table: "apiToken") { t in
                t.primaryKey("id", .text)
                t.column("accountID", .text).notNull().references("account", onDelete: .cascade)
                t.column("secretHash", .blob).notNull().unique()
                t.column("createdAt", .double).notNull()
                t.column("revokedAt", .double)
            }
            try db.create(table: "rideRequest") { t in
                t.primaryKey("id", .text)
                t.column("passengerID", .text).notNull().references("account")
                t.column("passengerName", .text).notNull()
                t.column("pickup", .text).notNull()
                t.column("dropoff", .text).notNull()
                t.column("accessibilityNotes", .text)
                t.column("status", .text).notNull()
                t.column("createdAt", .double).notNull()
                t.column("rideID", .text)
            }
            try db.create(index: "rideRequest_passenger", on: "rideRequest", columns: ["passengerID"])
            try db.create(index: "rideRequest_open", on: "rideRequest", columns: ["status", "createdAt"])
            try db.create(table: "ride") { t in
                t.primaryKey("id", .text)
                // unique: one request can never become two rides, whatever races happen.
                t.column("requestID", .text).notNull().unique().references("rideRequest")
                t.column("passengerID", .text).notNull().references("account")
                t.column("driverID", .text).notNull().references("account")
                t.column("state", .text).notNull()
                t.column("key", .blob).notNull()
                t.column("createdAt", .double).notNull()
                t.column("stateChangedAt", .double).notNull()
            }
            try db.create(index: "ride_state", on: "ride", columns: ["state", "createdAt"])
            try db.create(index: "ride_passenger", on: "ride", columns: ["passengerID"])
            try db.create(index: "ride_driver", on: "ride", columns: ["driverID"])
            try db.create(table: "rideEvent") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("rideID", .text).notNull().references("ride")
                t.column("sequence", .integer).notNull()
                t.column("state", .text).notNull()
                t.column("actorID", .text).notNull()
                t.column("at", .double).notNull()
                t.column("detail", .text)
                t.uniqueKey(["rideID", "sequence"])
            }
            try db.create(table: "idempotency") { t in
                t.column("accountID", .text).notNull()
                t.column("key", .text).notNull()
                t.column("operation", .text).notNull()
                t.column("result", .blob).notNull()
                t.column("createdAt", .double).notNull()
                t.primaryKey(["accountID", "key"])
            }
        }
        // Request-level events (a new request reaches dispatchers before any driver accepts it),
        // so an event belongs to a request and, from acceptance on, to its ride; token expiry.
        m.register("v2") { db in
            try db.alter(table: "apiToken") { t in t.add(column: "expiresAt", .double) }
            try db.create(table: "rideEvent_v2") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("requestID", .text).notNull().references("rideRequest")
                t.column("rideID", .text).references("ride")
                t.column("sequence", .integer).notNull()
                t.column("state", .text).notNull()
                t.column("actorID", .text).notNull()
                t.column("at", .double).notNull()
                t.column("detail", .text)
                t.uniqueKey(["requestID", "sequence"])
            }
            // Ids are kept, so a client's Last-Event-ID stays valid across the upgrade.
            try db.execute(sql: """
                INSERT INTO rideEvent_v2 (id, requestID, rideID, sequence, state, actorID, at, detail)
                SELECT e.id, r.requestID, e.rideID, e.sequence, e.state, e.actorID, e.at, e.detail
                FROM rideEvent e JOIN ride r ON r.id = e.rideID ORDER BY e.id
                """)
            try db.drop(table: "rideEvent")
            try db.rename(table: "rideEvent_v2", to: "rideEvent")
            try db.create(index: "rideEvent_ride", on: "rideEvent", columns: ["rideID"])
            // Listings walk rides and requests in (createdAt, id) order and stop after a page;
            // without these every page sorted the whole table first.
            try db.create(index: "ride_created", on: "ride", columns: ["createdAt", "id"])
            try db.create(index: "rideRequest_created", on: "rideRequest", columns: ["createdAt", "id"])
            // Requests still open had no event yet; their history must start like new ones'.
            try db.execute(sql: """
                INSERT INTO rideEvent (requestID, rideID, sequence, state, actorID, at)
                SELECT id, NULL, 1, 'requested', passengerID, createdAt FROM rideRequest WHERE status = 'open' ORDER BY createdAt, id
                """)
        }
        // Touch proofs, kept so a replay is refused by any server on the database (the unique
        // key is the proof itself); when a request's locations were purged (retention).
        m.register("v3") { db in
            try db.create(table: "touchProof") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("rideID", .text).notNull().references("ride")
                t.column("side", .text).notNull().check(sql: "side IN ('passenger','driver')")
                t.column("accountID", .text).notNull().references("account")
                t.column("slot", .integer).notNull()
                t.column("uuid", .text).notNull()
                t.column("major", .integer).notNull()
                t.column("minor", .integer).notNull()
                t.column("peakRssiDbm", .double).notNull()
                t.column("samples", .integer).notNull()
                // Milliseconds since 1970, integers so the uniqueness check is exact.
                t.column("observedAtMs", .integer).notNull()
                t.column("receivedAtMs", .integer).notNull()
                t.uniqueKey(["rideID", "side", "slot", "observedAtMs"])
            }
            try db.create(index: "touchProof_received", on: "touchProof", columns: ["rideID", "receivedAtMs"])
            try db.alter(table: "rideRequest") { t in t.add(column: "locationsPurgedAt", .double) }
        }
        // Idempotency results expire; the hourly purge deletes by age.
        m.register("v4") { db in
            try db.create(index: "idempotency_created", on: "idempotency", columns: ["createdAt"])
        }
        // Each proof's observation window (issue 12, mutual touch). Proofs stored before have
        // none: their window is the instant they were observed at.
        m.register("v5-touch-windows") { db in
            try db.alter(table: "touchProof") { t in
                t.add(column: "observedFromMs", .integer)
                t.add(column: "observedUntilMs", .integer)
            }
            try db.execute(sql: "UPDATE touchProof SET observedFromMs = observedAtMs, observedUntilMs = observedAtMs")
        }
        // PostgreSQL's staged event appends (PostgresMigrations). SQLite's one writer already
        // appends events in id order, so nothing changes here; the step keeps both lists alike.
        m.register("v6-event-sequence") { _ in }
        // Journeys: short ride codes (a ride copies its request's), the driver's ETA, one-time
        // sign-in codes (only their hash is kept) and passengers' saved places.
        m.register("v7-journeys") { db in
            try db.alter(table: "rideRequest") { t in t.add(column: "shortCode", .text) }
            try db.create(index: "rideRequest_shortCode", on: "rideRequest", columns: ["shortCode", "createdAt"])
            try db.alter(table: "ride") { t in
                t.add(column: "shortCode", .text)
                t.add(column: "etaMinutes", .integer)
                t.add(column: "etaGivenAt", .double)
            }
            try db.create(index: "ride_driver_state", on: "ride", columns: ["driverID", "state"])
            try db.create(table: "signInCode") { t in
                t.primaryKey("id", .text)
                t.column("accountID", .text).notNull().references("account", onDelete: .cascade)
                t.column("codeHash", .blob).notNull().unique()
                t.column("issuedBy", .text).notNull()
                t.column("createdAt", .double).notNull()
                t.column("expiresAt", .double).notNull()
                t.column("usedAt", .double)
            }
            try db.create(index: "signInCode_account", on: "signInCode", columns: ["accountID", "createdAt"])
            try db.create(table: "savedPlace") { t in
                t.column("accountID", .text).notNull().references("account", onDelete: .cascade)
                t.column("name", .text).notNull()
                t.column("address", .text).notNull()
                t.column("createdAt", .double).notNull()
                t.primaryKey(["accountID", "name"])
            }
        }
        // Events that change no state (the passenger asking the car to sound its locator);
        // every earlier event was a state change.
        m.register("v8-locator") { db in
            try db.alter(table: "rideEvent") { t in t.add(column: "kind", .text).notNull().defaults(to: "state_changed") }
        }
        // Issue 25: a driver's car as colour, make, model and plate. Today's free text is split
        // best effort (`Vehicle(parsing:)`, the same rule as PostgresMigrations'
        // v9-vehicle-parts); text that cannot be split stays as written, with no parts.
        m.register("v9-vehicle-parts") { db in
            try db.alter(table: "account") { t in
                t.add(column: "vehicleColour", .text)
                t.add(column: "vehicleMake", .text)
                t.add(column: "vehicleModel", .text)
                t.add(column: "vehiclePlate", .text)
            }
            let rows = try Row.fetchAll(db, sql: "SELECT id, vehicle FROM account WHERE vehicle IS NOT NULL")
            for row in rows {
                guard let text: String = row["vehicle"], let parts = Vehicle(parsing: text) else { continue }
                try db.execute(sql: "UPDATE account SET vehicleColour = ?, vehicleMake = ?, vehicleModel = ? WHERE id = ?",
                               arguments: [parts.colour, parts.make, parts.model, row["id"] as String])
            }
        }
        // Issue 25: the device a token was signed in on ("Ana's phone", "Firefox on Linux").
        m.register("v10-token-device-names") { db in
            try db.alter(table: "apiToken") { t in t.add(column: "deviceName", .text) }
        }
        // Issue 28: PostgreSQL's transition functions; SQLite's writes already run in-process.
        m.register("transition-functions-1") { _ in }
        // Issue 26: the language an account chose for what the service writes to it.
        m.register("v11-account-language") { db in
            try db.create(table: "accountLanguage") { t in
                t.column("accountID", .text).primaryKey().references("account", onDelete: .cascade)
                t.column("language", .text).notNull()
            }
        }
        // Issue 28: PostgreSQL's transitions as procedures that commit before answering.
        m.register("transition-functions-2") { _ in }
        m.register("transition-functions-3") { _ in }
        m.register("transition-functions-4") { _ in }
        // A passenger's message with an Idempotency-Key: PostgreSQL's procedure for it.
        m.register("transition-functions-keyed-notes") { _ in }
        // Issue 37 (9): PostgreSQL's accept counts a confirmed ride as busy (DriverOccupancy).
        m.register("driver-busy-while-confirmed") { _ in }
        // Issue 36 (10): PostgreSQL's touch proof checks resends in its transaction (TouchProofResend).
        m.register("touch-proof-resend-check") { _ in }
        // Issue 36 (6): each ride counts its ride-word attempts (`spendRideWordAttempt`).
        m.register("ride-word-attempts") { db in
            try db.alter(table: "ride") { t in t.add(column: "rideWordAttempts", .integer).notNull().defaults(to: 0) }
        }
        // Issue 36 (4): a ride's newest event of a kind, and its count of a kind, by index
        // (`latestEvent`, the notes' limits); PostgreSQL also gets its note procedure.
        m.register("bounded-ride-notes") { db in
            try db.create(index: "rideEvent_ride_kind", on: "rideEvent", columns: ["rideID", "kind", "id"])
        }
        // Issue 35: each party's latest position during the approach, one row per (ride,
        // party), deleted by the ride's end in the transaction that ends it.
        m.register("ride-positions") { db in
            try db.create(table: "ridePosition") { t in
                t.column("rideID", .text).notNull().references("ride", onDelete: .cascade)
                t.column("party", .text).notNull()
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("accuracyMeters", .double).notNull()
                t.column("courseDegrees", .double)
                t.column("recordedAt", .double).notNull()
                t.column("receivedAt", .double).notNull()
                t.primaryKey(["rideID", "party"])
            }
            try db.execute(sql: """
                CREATE TRIGGER ridePosition_forgotten_at_end AFTER UPDATE OF state ON ride
                WHEN NEW.state IN ('confirmed', 'cancelled', 'completed')
                BEGIN DELETE FROM ridePosition WHERE rideID = NEW.id; END
                """)
        }
        // Issue 36 (4): PostgreSQL's per-ride caps on locator requests and touch proofs
        // (RideHistoryCaps); SQLite's writes count in their own transaction.
        m.register("ride-history-caps") { _ in }
        // Issue 39: PostgreSQL's per-transition work (TransitionWork); nothing to do on SQLite.
        m.register("transition-work") { _ in }
        // PostgreSQL folds its transition procedures into one body each (issue 39); nothing to do here.
        m.register("folded-transitions") { _ in }
        // PostgreSQL's transitions sequence their own events when they can (issue 39); nothing to do here.
        m.register("self-sequencing-transitions") { _ in }
        // Issue 39: `ride_driver` (driverID) is the first column of `ride_driver_state` (driverID,
        // state) and `rideEvent_ride` (rideID) of `rideEvent_ride_kind` (rideID, kind, id): every
        // lookup either served is served by the wider one, and every insert, and every ride
        // state change, wrote both.
        m.register("redundant-indexes") { db in
            try db.execute(sql: "DROP INDEX IF EXISTS ride_driver")
            try db.execute(sql: "DROP INDEX IF EXISTS rideEvent_ride")
        }
        return m
    }()

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in all.migrations { migrator.registerMigration(migration.name, migrate: migration.step) }
        return migrator
    }

    /// Applies what is missing, after refusing a database a newer binary migrated
    /// (`hasBeenSuperseded`: it records a migration this list does not have).
    static func migrate(_ writer: some DatabaseWriter, path: String) throws {
        let migrator = self.migrator
        let applied = try writer.read { db in try migrator.appliedIdentifiers(db) }
        _ = try all.pending(applied: applied, database: "sqlite:\(path)")
        try migrator.migrate(writer)
    }
}
