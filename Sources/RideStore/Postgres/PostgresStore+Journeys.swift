import Foundation
import PostgresNIO

extension PostgresStore {
    public func setETA(rideID: String, minutes: Int, by driverID: String, idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await sequenced { try await idempotent(idempotency, operation: "eta:\(rideID)") { conn in
            guard var ride = try await conn.query("SELECT \(unescaped: PGColumns.ride) FROM ride WHERE id = \(rideID) FOR UPDATE", logger: self.logger).all(RideRecord.init).first else {
                throw StoreError.notFound("ride \(rideID)")
            }
            guard ride.state == .accepted else { throw StoreError.illegalTransition(from: ride.state, to: .accepted) }
            // Under the ride's row lock, staged events counted as the notes count them.
            let given = try await conn.query("""
                SELECT (SELECT COUNT(*) FROM ride_event WHERE ride_id = \(rideID) AND kind = 'eta_given')
                     + (SELECT COUNT(*) FROM ride_event_pending WHERE ride_id = \(rideID) AND kind = 'eta_given')
                """, logger: self.logger).all({ try $0.decode(Int64.self) }).first ?? 0
            guard given < RideHistoryLimits.etaUpdatesPerRide else { throw RideHistoryLimits.etaRefusal }
            let now = Date.storeNow
            ride.etaMinutes = minutes
            ride.etaGivenAt = now
            try await conn.query("UPDATE ride SET eta_minutes = \(minutes), eta_given_at = \(now) WHERE id = \(rideID)", logger: self.logger)
            try await self.appendEvent(conn, requestID: ride.requestID, rideID: rideID, kind: .etaGiven, state: .accepted, actor: driverID, at: now,
                                       detail: ETAText.detail(minutes: minutes))
            return ride
        } }
    }

    public func addSignInCode(_ code: SignInCodeRecord, codeHash: Data, perDay: Int, perIssuerPerDay: Int) async throws -> SignInCodeRecord {
        try await transaction { conn in
            // Row lock on the account: two issuers at once both see the other's count.
            guard try await conn.query("SELECT 1 FROM account WHERE id = \(code.accountID) FOR UPDATE", logger: self.logger).all({ $0 }).count == 1 else {
                throw StoreError.notFound("account \(code.accountID)")
            }
            let since = code.createdAt.addingTimeInterval(-86_400)
            let recent = try await conn.query("SELECT COUNT(*)::int8 FROM sign_in_code WHERE account_id = \(code.accountID) AND created_at > \(since)", logger: self.logger).all({ try $0.decode(Int64.self) }).first ?? 0
            guard recent < perDay else {
                throw StoreError.limitReached("\(perDay) sign-in codes were already issued for this account in the last 24 hours")
            }
            // Serialises one issuer's codes too, so their daily count is exact.
            try await conn.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.signInIssuer), hashtext(\(code.issuedBy)))", logger: self.logger)
            let byIssuer = try await conn.query("SELECT COUNT(*)::int8 FROM sign_in_code WHERE issued_by = \(code.issuedBy) AND created_at > \(since)", logger: self.logger).all({ try $0.decode(Int64.self) }).first ?? 0
            guard byIssuer < perIssuerPerDay else {
                throw StoreError.limitReached("you already issued \(perIssuerPerDay) sign-in codes in the last 24 hours")
            }
            try await conn.query("""
                INSERT INTO sign_in_code (id, account_id, code_hash, issued_by, created_at, expires_at)
                VALUES (\(code.id), \(code.accountID), \(codeHash), \(code.issuedBy), \(code.createdAt), \(code.expiresAt))
                """, logger: self.logger)
            return code
        }
    }

    public func redeemSignInCode(codeHash: Data, tokenSecretHash: Data, tokenExpiresAt: Date?, now: Date,
                                 admit: @escaping @Sendable (Account) throws -> Void) async throws -> SignIn {
        // An `admit` refusal leaves the transaction as a value, not an error: thrown through
        // `transaction` it would be mapped to `unavailable` and counted as an outage.
        let redemption: Redemption = try await transaction { conn in
            guard let found = try await conn.query("SELECT id, account_id, issued_by, expires_at, used_at FROM sign_in_code WHERE code_hash = \(codeHash) FOR UPDATE", logger: self.logger).all({ try $0.decode((String, String, String, Date, Date?).self) }).first else {
                throw StoreError.signInRefused(.unknown)
            }
            let (id, accountID, issuedBy, expiresAt, usedAt) = found
            guard let account = try await conn.query("SELECT \(unescaped: PGColumns.account) FROM account WHERE id = \(accountID)", logger: self.logger).all(Account.init).first else {
                throw StoreError.signInRefused(.unknown)
            }
            // Before the used and expired checks: the per-account limit counts tries of used codes too.
            do { try admit(account) } catch { return .refused(error) }
            guard usedAt == nil else { throw StoreError.signInRefused(.used) }
            guard expiresAt > now else { throw StoreError.signInRefused(.expired) }
            try await conn.query("UPDATE sign_in_code SET used_at = \(now) WHERE id = \(id)", logger: self.logger)
            let token = APIToken(id: StoreID.make(), accountID: accountID, createdAt: .storeNow, revokedAt: nil, expiresAt: tokenExpiresAt)
            try await conn.query("INSERT INTO api_token (id, account_id, secret_hash, created_at, expires_at) VALUES (\(token.id), \(accountID), \(tokenSecretHash), \(token.createdAt), \(tokenExpiresAt))", logger: self.logger)
            return .signedIn(SignIn(account: account, token: token, codeID: id, issuedBy: issuedBy))
        }
        switch redemption {
        case .signedIn(let signIn): return signIn
        case .refused(let error): throw error
        }
    }

    private enum Redemption: Sendable {
        case signedIn(SignIn)
        case refused(any Error)
    }

    public func extendToken(id: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await transaction { conn in
            try await conn.query("UPDATE api_token SET expires_at = \(expiresAt) WHERE id = \(id) AND revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at > \(now) RETURNING id", logger: self.logger).all({ $0 }).count == 1
        }
    }

    public func tokens(accountID: String) async throws -> [APIToken] {
        try await mapped {
            try await self.db.query("SELECT id, account_id, created_at, revoked_at, expires_at, device_name FROM api_token WHERE account_id = \(accountID) ORDER BY created_at DESC, id", logger: self.logger).all { row in
                let (id, account, created, revoked, expires, device) = try row.decode((String, String, Date, Date?, Date?, String?).self)
                return APIToken(id: id, accountID: account, createdAt: created.wholeMilliseconds, revokedAt: revoked?.wholeMilliseconds,
                                expiresAt: expires?.wholeMilliseconds, deviceName: device)
            }
        }
    }

    public func revokeToken(id: String, accountID: String) async throws -> APIToken {
        let result = try await transaction { conn in
            guard let found = try await conn.query("SELECT created_at, revoked_at, expires_at FROM api_token WHERE id = \(id) AND account_id = \(accountID) FOR UPDATE", logger: self.logger).all({ try $0.decode((Date, Date?, Date?).self) }).first else {
                throw StoreError.notFound("token \(id)")
            }
            let (created, revoked, expires) = found
            var token = APIToken(id: id, accountID: accountID, createdAt: created.wholeMilliseconds, revokedAt: revoked?.wholeMilliseconds,
                                 expiresAt: expires?.wholeMilliseconds)
            if token.revokedAt == nil {
                let now = Date.storeNow
                token.revokedAt = now
                try await conn.query("UPDATE api_token SET revoked_at = \(now) WHERE id = \(id)", logger: self.logger)
                // Every server's open streams of this token re-check it (see revokeTokens).
                try await conn.query("SELECT pg_notify(\(Self.eventChannel), \(Self.tokensRevokedPayload))", logger: self.logger)
            }
            return token
        }
        // Only once committed (CommitAnnouncements): a write that threw changed nothing here; on
        // PostgreSQL a commit whose answer was lost still reaches every server by its NOTIFY.
        commits.announce(.tokensRevoked)
        return result
    }

    // This and removePlace are single statements, yet inside BEGIN … COMMIT: a lone statement's
    // answer reaches the client before its implicit commit is flushed (TransitionProcedures).
    public func nameTokenDevice(id: String, accountID: String, deviceName: String) async throws {
        let named = try await transaction { conn in
            try await conn.query("UPDATE api_token SET device_name = \(deviceName) WHERE id = \(id) AND account_id = \(accountID) RETURNING id",
                                 logger: self.logger).all { $0 }.count
        }
        guard named == 1 else { throw StoreError.notFound("token \(id)") }
    }

    public func savedPlaces(accountID: String) async throws -> [SavedPlaceRecord] {
        try await mapped {
            try await self.db.query("SELECT account_id, name, address, created_at FROM saved_place WHERE account_id = \(accountID) ORDER BY name", logger: self.logger).all { row in
                let (account, name, address, created) = try row.decode((String, String, String, Date).self)
                return SavedPlaceRecord(accountID: account, name: name, address: address, createdAt: created.wholeMilliseconds)
            }
        }
    }

    public func savePlace(_ place: SavedPlaceRecord) async throws -> SavedPlaceRecord {
        try await transaction { conn in
            guard try await conn.query("SELECT 1 FROM account WHERE id = \(place.accountID)", logger: self.logger).all({ $0 }).count == 1 else {
                throw StoreError.notFound("account \(place.accountID)")
            }
            return try await conn.query("""
                INSERT INTO saved_place (account_id, name, address, created_at) VALUES (\(place.accountID), \(place.name), \(place.address), \(place.createdAt))
                ON CONFLICT (account_id, name) DO UPDATE SET address = EXCLUDED.address
                RETURNING account_id, name, address, created_at
                """, logger: self.logger).all { row in
                let (account, name, address, created) = try row.decode((String, String, String, Date).self)
                return SavedPlaceRecord(accountID: account, name: name, address: address, createdAt: created.wholeMilliseconds)
            }.first ?? place
        }
    }

    public func removePlace(accountID: String, name: String) async throws -> Bool {
        try await transaction { conn in
            try await conn.query("DELETE FROM saved_place WHERE account_id = \(accountID) AND name = \(name) RETURNING name", logger: self.logger).all({ $0 }).count == 1
        }
    }
}
