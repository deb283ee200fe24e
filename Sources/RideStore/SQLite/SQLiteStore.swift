import Foundation
import GRDB

/// The one-box store: a SQLite file in WAL mode through GRDB on the system libsqlite3.
/// Writers are serialised by SQLite, which is what makes `accept` atomic here.
public final class SQLiteStore: Store {
    let pool: DatabasePool
    /// Every write goes through it: writes that arrive together share one commit (one fsync).
    let writes: GroupCommit
    /// Appended events are announced by the commit itself (`eventsObservation`), revocations
    /// after their write.
    public let commits: CommitAnnouncements
    /// Every transaction that touched the history announces `.eventsAppended` once it commits.
    let eventsObservation: AppendedEventsObservation

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String) throws {
        let commits = CommitAnnouncements()
        self.commits = commits
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(5)
        let synchronous = try Self.synchronousMode()
        config.prepareDatabase { db in
            // FULL: a write acknowledged to a client survives power loss, not just a crash.
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        if path != ":memory:" { try Self.createPrivately(path) }
        do {
            pool = try DatabasePool(path: path, configuration: config)
            // GRDB turns WAL on after prepareDatabase and then sets the writer to synchronous =
            // NORMAL (commits not fsync'd: acknowledged writes lost on power loss, found by
            // scripts/reliability/power_loss.py). The writer commits every write: set it again.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
            writes = GroupCommit(pool: pool)
            try SQLiteMigrations.migrate(pool, path: path)
        } catch {
            throw Self.mapped(error)
        }
        eventsObservation = AppendedEventsObservation(pool: pool, commits: commits)
    }

    deinit { eventsObservation.cancel() }

    func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do { return try await pool.read(body) } catch { throw Self.mapped(error) }
    }

    func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do { return try await writes.write(body) } catch { throw Self.mapped(error) }
    }

    /// FULL, unless RIDEBEACON_SQLITE_SYNCHRONOUS=NORMAL: the power-loss harness's negative
    /// control (scripts/reliability/power_loss.py), which must then see acknowledged writes lost.
    static func synchronousMode(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        switch environment["RIDEBEACON_SQLITE_SYNCHRONOUS"] {
        case nil, "", "FULL": return "FULL"
        case "NORMAL": return "NORMAL"
        case let other?:
            throw StoreError.invalid("RIDEBEACON_SQLITE_SYNCHRONOUS is \(other); it may be FULL (the default) or NORMAL (loses acknowledged writes on power loss: for tests only)")
        }
    }

    static func mapped(_ error: any Error) -> any Error {
        guard let e = error as? DatabaseError else { return error }
        switch e.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_FULL, .SQLITE_READONLY:
            return StoreError.unavailable("database: \(e.message ?? "\(e.resultCode)")")
        default:
            return error
        }
    }

    // MARK: Lifecycle

    /// Migrations already ran when the store was opened.
    public func migrate() async throws {}

    public func ping() async throws {
        _ = try await read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    public func close() async {
        try? pool.close()
    }

    // MARK: Accounts

    public func createAccount(_ new: NewAccount, idempotency: IdempotencyScope?) async throws -> Account {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "create-account") {
                try Account(id: StoreID.make(), role: new.role, displayName: new.displayName,
                            vehicle: new.vehicle, vehicleDetails: new.vehicleDetails, createdAt: .storeNow).inserted(db)
            }
        }
    }

    public func account(id: String) async throws -> Account? {
        try await read { db in try Account.fetchOne(db, key: id) }
    }

    public func accounts() async throws -> [Account] {
        // Ties (one millisecond) in the order they were made.
        try await read { db in try Account.order(Column("createdAt"), Column.rowID).fetchAll(db) }
    }

    public func addToken(accountID: String, secretHash: Data, expiresAt: Date?, idempotency: IdempotencyScope?) async throws -> TokenIssue {
        let newID = StoreID.make()
        let token = try await write { db in
            try Self.idempotent(db, idempotency, operation: "add-token:\(accountID)") {
                guard try Account.exists(db, key: accountID) else { throw StoreError.notFound("account \(accountID)") }
                let token = APIToken(id: newID, accountID: accountID, createdAt: .storeNow, revokedAt: nil, expiresAt: expiresAt)
                try db.execute(sql: "INSERT INTO apiToken (id, accountID, secretHash, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?)",
                               arguments: [token.id, token.accountID, secretHash, token.createdAt.sqlValue, expiresAt?.sqlValue])
                return token
            }
        }
        return TokenIssue(token: token, isReplay: token.id != newID)
    }

    public func authenticate(secretHash: Data) async throws -> Account? {
        let now = Date.storeNow.sqlValue
        return try await read { db in
            // Cached statements skip re-preparing (and GRDB's per-prepare authorizer) on the hot paths.
            // Read by position, like the ride details: every authenticated request runs this.
            try Row.fetchOne(db.cachedStatement(sql: """
                SELECT account.id, account.role, account.displayName, account.vehicle, account.createdAt,
                       account.vehicleColour, account.vehicleMake, account.vehicleModel, account.vehiclePlate
                FROM account JOIN apiToken ON apiToken.accountID = account.id
                WHERE apiToken.secretHash = ? AND apiToken.revokedAt IS NULL
                AND (apiToken.expiresAt IS NULL OR apiToken.expiresAt > ?)
                """), arguments: [secretHash, now]).map { row in
                    guard let role = Role(rawValue: row[1]) else {
                        throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "account \(row[0] as String) has an unknown role")
                    }
                    let details = (row[7] as String?).map { Vehicle(colour: row[5], make: row[6], model: $0, plate: row[8]) }
                    return Account(id: row[0], role: role, displayName: row[2], vehicle: row[3], vehicleDetails: details,
                                   createdAt: Date(timeIntervalSince1970: row[4]))
                }
        }
    }

    public func revokeTokens(accountID: String, idempotency: IdempotencyScope?) async throws -> Int {
        let result = try await write { db in
            try Self.idempotent(db, idempotency, operation: "revoke-tokens:\(accountID)") {
                let now = Date.storeNow.sqlValue
                try db.execute(sql: "UPDATE apiToken SET revokedAt = ? WHERE accountID = ? AND revokedAt IS NULL",
                               arguments: [now, accountID])
                let revoked = db.changesCount
                // Codes issued before the revocation must not sign in after it.
                try db.execute(sql: "UPDATE signInCode SET expiresAt = ? WHERE accountID = ? AND usedAt IS NULL AND expiresAt > ?",
                               arguments: [now, accountID, now])
                return revoked
            }
        }
        // Only once committed (CommitAnnouncements): a write that threw changed nothing here; on
        // PostgreSQL a commit whose answer was lost still reaches every server by its NOTIFY.
        commits.announce(.tokensRevoked)
        return result
    }

    public func token(secretHash: Data) async throws -> APIToken? {
        try await read { db in try APIToken.filter(Column("secretHash") == secretHash).fetchOne(db) }
    }

    // MARK: History

    public func events(rideID: String, after id: Int64) async throws -> [RideEvent] {
        try await read { db in
            try RideEvent.fetchAll(db, sql: """
                SELECT * FROM rideEvent WHERE requestID = (SELECT requestID FROM ride WHERE id = ?) AND id > ? ORDER BY id
                """, arguments: [rideID, id])
        }
    }

    public func events(after id: Int64, limit: Int) async throws -> [RideEvent] {
        try await read { db in
            try RideEvent.filter(Column("id") > id).order(Column("id")).limit(limit).fetchAll(db)
        }
    }

    public func lastEventID() async throws -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM rideEvent") ?? 0 }
    }

    /// One SQLite file has one server process, whose writes wake its listeners directly.
    public var sharesEventsAcrossProcesses: Bool { false }

    public func listenForAppendedEvents(onListening: @escaping @Sendable () -> Void, onAppend: @escaping @Sendable (CrossProcessNotice) -> Void) async throws {}
}
