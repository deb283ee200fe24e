import GRDB

/// The whole schema, in order. Never edit a shipped migration; add one.
enum SQLiteMigrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
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
        return m
    }
}
