import Foundation
import GRDB

extension SQLiteStore {
    public func setETA(rideID: String, minutes: Int, by driverID: String, idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "eta:\(rideID)") {
                guard var ride = try RideRecord.fetchOne(db, key: rideID) else { throw StoreError.notFound("ride \(rideID)") }
                guard ride.state == .accepted else { throw StoreError.illegalTransition(from: ride.state, to: .accepted) }
                let given = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM rideEvent WHERE rideID = ? AND kind = ?"),
                                             arguments: [rideID, RideEventKind.etaGiven]) ?? 0
                guard given < RideHistoryLimits.etaUpdatesPerRide else { throw RideHistoryLimits.etaRefusal }
                ride.etaMinutes = minutes
                ride.etaGivenAt = .storeNow
                try ride.update(db)
                try Self.appendEvent(db, requestID: ride.requestID, rideID: ride.id, kind: .etaGiven, state: .accepted, actor: driverID,
                                     at: ride.etaGivenAt!,
                                     detail: ETAText.detail(minutes: minutes))
                return ride
            }
        }
    }

    public func addSignInCode(_ code: SignInCodeRecord, codeHash: Data, perDay: Int, perIssuerPerDay: Int) async throws -> SignInCodeRecord {
        try await write { db in
            guard try Account.exists(db, key: code.accountID) else { throw StoreError.notFound("account \(code.accountID)") }
            let since = code.createdAt.addingTimeInterval(-86_400).sqlValue
            let recent = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM signInCode WHERE accountID = ? AND createdAt > ?",
                                          arguments: [code.accountID, since]) ?? 0
            guard recent < perDay else {
                throw StoreError.limitReached("\(perDay) sign-in codes were already issued for this account in the last 24 hours")
            }
            let byIssuer = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM signInCode WHERE issuedBy = ? AND createdAt > ?",
                                            arguments: [code.issuedBy, since]) ?? 0
            guard byIssuer < perIssuerPerDay else {
                throw StoreError.limitReached("you already issued \(perIssuerPerDay) sign-in codes in the last 24 hours")
            }
            try db.execute(sql: """
                INSERT INTO signInCode (id, accountID, codeHash, issuedBy, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [code.id, code.accountID, codeHash, code.issuedBy, code.createdAt.sqlValue, code.expiresAt.sqlValue])
            return code
        }
    }

    public func redeemSignInCode(codeHash: Data, tokenSecretHash: Data, tokenExpiresAt: Date?, now: Date,
                                 admit: @escaping @Sendable (Account) throws -> Void) async throws -> SignIn {
        try await write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, accountID, issuedBy, expiresAt, usedAt FROM signInCode WHERE codeHash = ?",
                                             arguments: [codeHash]) else { throw StoreError.signInRefused(.unknown) }
            let accountID: String = row["accountID"]
            guard let account = try Account.fetchOne(db, key: accountID) else { throw StoreError.signInRefused(.unknown) }
            // Before the used and expired checks: the per-account limit counts tries of used codes too.
            try admit(account)
            // Used before expired: someone who already signed in is told so, not that it lapsed.
            guard (row["usedAt"] as Double?) == nil else { throw StoreError.signInRefused(.used) }
            guard (row["expiresAt"] as Double) > now.sqlValue else { throw StoreError.signInRefused(.expired) }
            // The conditional update settles two simultaneous redemptions: one token, not two.
            try db.execute(sql: "UPDATE signInCode SET usedAt = ? WHERE id = ? AND usedAt IS NULL", arguments: [now.sqlValue, row["id"] as String])
            guard db.changesCount == 1 else { throw StoreError.signInRefused(.used) }
            let token = APIToken(id: StoreID.make(), accountID: accountID, createdAt: .storeNow, revokedAt: nil, expiresAt: tokenExpiresAt)
            try db.execute(sql: "INSERT INTO apiToken (id, accountID, secretHash, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?)",
                           arguments: [token.id, accountID, tokenSecretHash, token.createdAt.sqlValue, tokenExpiresAt?.sqlValue])
            return SignIn(account: account, token: token, codeID: row["id"], issuedBy: row["issuedBy"])
        }
    }

    public func extendToken(id: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE apiToken SET expiresAt = ? WHERE id = ? AND revokedAt IS NULL AND expiresAt IS NOT NULL AND expiresAt > ?",
                           arguments: [expiresAt.sqlValue, id, now.sqlValue])
            return db.changesCount == 1
        }
    }

    public func tokens(accountID: String) async throws -> [APIToken] {
        try await read { db in
            try APIToken.filter(Column("accountID") == accountID).order(Column("createdAt").desc, Column("id")).fetchAll(db)
        }
    }

    public func revokeToken(id: String, accountID: String) async throws -> APIToken {
        let result = try await write { db in
            guard var token = try APIToken.filter(Column("id") == id && Column("accountID") == accountID).fetchOne(db) else {
                throw StoreError.notFound("token \(id)")
            }
            if token.revokedAt == nil {
                token.revokedAt = .storeNow
                try db.execute(sql: "UPDATE apiToken SET revokedAt = ? WHERE id = ?", arguments: [token.revokedAt!.sqlValue, id])
            }
            return token
        }
        // Only once committed (CommitAnnouncements): a write that threw changed nothing here; on
        // PostgreSQL a commit whose answer was lost still reaches every server by its NOTIFY.
        commits.announce(.tokensRevoked)
        return result
    }

    public func nameTokenDevice(id: String, accountID: String, deviceName: String) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE apiToken SET deviceName = ? WHERE id = ? AND accountID = ?", arguments: [deviceName, id, accountID])
            guard db.changesCount == 1 else { throw StoreError.notFound("token \(id)") }
        }
    }

    public func savedPlaces(accountID: String) async throws -> [SavedPlaceRecord] {
        try await read { db in try SavedPlaceRecord.filter(Column("accountID") == accountID).order(Column("name")).fetchAll(db) }
    }

    public func savePlace(_ place: SavedPlaceRecord) async throws -> SavedPlaceRecord {
        try await write { db in
            guard try Account.exists(db, key: place.accountID) else { throw StoreError.notFound("account \(place.accountID)") }
            try db.execute(sql: """
                INSERT INTO savedPlace (accountID, name, address, createdAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (accountID, name) DO UPDATE SET address = excluded.address
                """, arguments: [place.accountID, place.name, place.address, place.createdAt.sqlValue])
            return try SavedPlaceRecord.filter(Column("accountID") == place.accountID && Column("name") == place.name).fetchOne(db) ?? place
        }
    }

    public func removePlace(accountID: String, name: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM savedPlace WHERE accountID = ? AND name = ?", arguments: [accountID, name])
            return db.changesCount == 1
        }
    }
}

extension SavedPlaceRecord: StoredRecord {
    public static let databaseTableName = "savedPlace"
}
