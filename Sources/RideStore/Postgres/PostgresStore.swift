import Foundation
import Logging
import PostgresNIO

/// The many-box store: PostgreSQL through PostgresNIO's clients (`ConnectionPools`), which run
/// from `init` until `close()`.
public final class PostgresStore: Store {
    let pools: ConnectionPools
    let logger: Logger
    /// How long one operation may wait, mostly for a connection: while the server is
    /// unreachable the pool queues requests for up to a minute, and callers need a prompt
    /// `unavailable` instead (HTTP 503) so they can retry.
    let operationTimeout: Duration
    /// The database's name, for messages.
    let databaseName: String
    /// The wait for the database while it is known to be down (see `Outage`).
    static let outageTimeout: Duration = .milliseconds(500)
    let outage = Outage()
    /// Announced after `sequenced` writes (events) and token revocations; other servers hear
    /// the same from the notification channel.
    public let commits = CommitAnnouncements()
    /// This server's sequencing runs, coalesced (`SequencingRuns`).
    let sequencingRuns = SequencingRuns()
    /// Every statement this store has sent, per operation (`RoundTrips`).
    public let roundTrips = RoundTrips()
    /// The pool, its statements counted.
    var db: CountedClient { CountedClient(pools: pools, roundTrips: roundTrips) }
    private let runners: [Task<Void, Never>]
    /// The event listener's own connection, outside the pools (`listenForAppendedEvents`).
    private let listenerConfiguration: PostgresConnection.Configuration
    private let keepAliveInterval: Duration

    /// Event ids travel on this channel, sent inside the appending transaction, so they are
    /// delivered exactly when (and only if) the event commits.
    static let eventChannel = "ridebeacon_events"

    /// What `serve` keeps open: four pools of two (`ConnectionPools`); a one-shot command keeps
    /// `commandConnections`, a test's store the initializer's default.
    public static let serverConnections = 8
    public static let commandConnections = 2

    /// `postgres://user[:password]@host[:port]/database`, with `connections` kept open
    /// (`ConnectionPools`): a server keeps more than a command or a test does. Each is used at
    /// least every `keepAliveInterval` (default `ConnectionPools.keepAliveInterval`).
    public init(url: String, operationTimeout: Duration = .seconds(5), connections: Int = 4,
                keepAliveInterval: Duration? = nil,
                logger: Logger = Logger(label: "ridebeacon.store.postgres")) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
              let host = components.host, let user = components.user else {
            throw StoreError.invalid("database URL must look like postgres://user:password@host:port/database")
        }
        let database = components.path.split(separator: "/").first.map(String.init)
        var config = PostgresClient.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                  password: components.password, database: database, tls: .disable)
        config.options.connectTimeout = .seconds(3)
        var listener = PostgresConnection.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                        password: components.password, database: database, tls: .disable)
        listener.options.connectTimeout = .seconds(3)
        listenerConfiguration = listener
        let pools = ConnectionPools(config, connections: connections, logger: logger)
        self.pools = pools
        self.logger = logger
        self.operationTimeout = operationTimeout
        databaseName = "postgres \(database ?? user)"
        // Detached: the pools must not inherit a caller's graceful-shutdown handler (run() ends
        // on it), the store outlives whatever service happened to open it; close() ends them.
        self.keepAliveInterval = keepAliveInterval ?? ConnectionPools.keepAliveInterval
        runners = pools.start(keepAliveEvery: self.keepAliveInterval, logger: logger)
    }

    deinit { for runner in runners { runner.cancel() } }

    /// A database that cannot be reached fails within the operation deadline (the ping), and so
    /// does finding the schema current (every start but the first after an upgrade: each `admin`
    /// command opens the store); only schema changes get `migrationTimeout`, because DDL on a
    /// big table, or many servers and tests migrating at once, can take far longer than a request
    /// may. (A database that went away while a command started once left the pool waiting for a
    /// connection it never handed over, and the command hung for the migration's 300 s.)
    public func migrate() async throws {
        try await ping()
        let current = try await mapped { try await PostgresMigrations.isCurrent(self.pools.first, database: self.databaseName, logger: self.logger) }
        guard !current else { return }
        try await mapped(within: Self.migrationTimeout) { () async throws -> Void in
            do {
                try await PostgresMigrations.migrate(self.pools.first, database: self.databaseName, logger: self.logger)
            } catch let error as PostgresTransactionError {
                // The refusal of a newer schema, not a failure to reach the database.
                if let tooNew = error.closureError as? SchemaTooNew { throw tooNew }
                if let tooOld = error.closureError as? PostgresTooOld { throw tooOld }
                throw error
            }
        }
    }

    static let migrationTimeout: Duration = .seconds(300)

    public func ping() async throws {
        _ = try await mapped { try await self.db.query("SELECT 1", logger: self.logger).all { $0 }.count }
    }

    public func close() async {
        // `make load` reads round trips per operation from this line (Benchmarks/Load/run.sh).
        logger.notice("round trips at close", metadata: ["round_trips": .string(roundTrips.summary)])
        for runner in runners { runner.cancel() }
        // PostgresNIO's pool may not end its run() when cancelled while it is reconnecting to a
        // database that just went away (vapor/postgres-nio#599), so the wait is bounded: a
        // process that is ending loses nothing by not waiting longer
        // (scripts/reliability/admin_under_crashes.py crashes the database under admin commands).
        _ = try? await withDeadline(Self.closeTimeout, timedOut: { StoreError.unavailable("the connection pool did not stop") }) {
            for runner in self.runners { await runner.value }
        }
    }

    static let closeTimeout: Duration = .seconds(5)

    /// Runs `body` under the operation deadline and turns "cannot reach the database" into
    /// `StoreError.unavailable`; errors the server reports about the query itself pass through.
    func mapped<T: Sendable>(within deadline: Duration? = nil, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            let result = try await mappedOnce(deadline ?? operationTimeout, body)
            outage.record(.success(()))
            return result
        } catch {
            outage.record(.failure(error))
            throw error
        }
    }

    private func mappedOnce<T: Sendable>(_ deadline: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            let limit = outage.isOngoing ? min(deadline, Self.outageTimeout) : deadline
            return try await withDeadline(limit, timedOut: { StoreError.unavailable("database did not answer within \(limit)") }, body)
        } catch let error as StoreError {
            throw error
        } catch let error as SchemaTooNew {
            throw error
        } catch let error as PSQLError where error.code == .server {
            // Classes 08 (connection), 53 (resources) and 57 (shutting down) are outages, not bad queries.
            let state = error.serverInfo?[.sqlState] ?? ""
            if ["08", "53", "57"].contains(String(state.prefix(2))) {
                throw StoreError.unavailable("database: \(error.serverInfo?[.message] ?? state)")
            }
            // Class RB: our own triggers refusing a write over a ride's cap (`RideHistoryCaps`).
            if state.hasPrefix("RB") { throw StoreError.limitReached(error.serverInfo?[.message] ?? "a ride's limit was reached") }
            throw error
        } catch let error as PSQLError {
            throw StoreError.unavailable("database: \(error.code)")
        } catch let error as PostgresDecodingError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // The pool's own errors (cancelled lease, circuit breaker, shut down).
            throw StoreError.unavailable("database: \(error)")
        }
    }

    /// Runs `body` in a transaction and surfaces the error that ended it (PostgresNIO wraps
    /// it), so callers see `StoreError`s and server errors directly.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (CountedConnection) async throws -> T) async throws -> T {
        try await mapped {
            do {
                // BEGIN and COMMIT (or ROLLBACK) are a round trip each.
                self.roundTrips.count(2)
                return try await self.pools.lease { client in
                    try await client.withTransaction(logger: self.logger) { conn in
                        try await body(CountedConnection(connection: conn, roundTrips: self.roundTrips))
                    }
                }
            } catch let error as PostgresTransactionError {
                throw error.closureError ?? error.commitError ?? error.beginError ?? error
            }
        }
    }

    // MARK: Accounts

    public func createAccount(_ new: NewAccount, idempotency: IdempotencyScope?) async throws -> Account {
        try await idempotent(idempotency, operation: "create-account") { conn in
            let a = Account(id: StoreID.make(), role: new.role, displayName: new.displayName, vehicle: new.vehicle,
                            vehicleDetails: new.vehicleDetails, createdAt: .storeNow)
            let v = a.vehicleDetails
            try await conn.query("""
                INSERT INTO account (id, role, display_name, vehicle, created_at, vehicle_colour, vehicle_make, vehicle_model, vehicle_plate)
                VALUES (\(a.id), \(a.role.rawValue), \(a.displayName), \(a.vehicle), \(a.createdAt), \(v?.colour), \(v?.make), \(v?.model), \(v?.plate))
                """, logger: self.logger)
            return a
        }
    }

    public func account(id: String) async throws -> Account? {
        try await mapped {
            try await self.db.rows(Prepared<ReadSQL.AccountByID>(id), logger: self.logger, Account.init(row:)).first
        }
    }

    public func accounts() async throws -> [Account] {
        try await mapped {
            try await self.db.query("SELECT \(unescaped: PGColumns.account) FROM account ORDER BY created_at, id", logger: self.logger).all(Account.init)
        }
    }

    public func addToken(accountID: String, secretHash: Data, expiresAt: Date?, idempotency: IdempotencyScope?) async throws -> TokenIssue {
        let newID = StoreID.make()
        let token = try await idempotent(idempotency, operation: "add-token:\(accountID)") { conn in
            guard try await conn.query("SELECT 1 FROM account WHERE id = \(accountID)", logger: self.logger).all({ $0 }).count == 1 else {
                throw StoreError.notFound("account \(accountID)")
            }
            let token = APIToken(id: newID, accountID: accountID, createdAt: .storeNow, revokedAt: nil, expiresAt: expiresAt)
            try await conn.query("INSERT INTO api_token (id, account_id, secret_hash, created_at, expires_at) VALUES (\(token.id), \(accountID), \(secretHash), \(token.createdAt), \(expiresAt))", logger: self.logger)
            return token
        }
        return TokenIssue(token: token, isReplay: token.id != newID)
    }

    public func authenticate(secretHash: Data) async throws -> Account? {
        try await roundTrips.operation("authenticate") {
            let now = Date.storeNow
            return try await mapped {
                try await self.db.rows(Prepared<ReadSQL.Authenticate>(secretHash, now), logger: self.logger, Account.init(row:)).first
            }
        }
    }

    public func revokeTokens(accountID: String, idempotency: IdempotencyScope?) async throws -> Int {
        let result = try await idempotent(idempotency, operation: "revoke-tokens:\(accountID)") { conn in
            let now = Date.storeNow
            let count = try await conn.query("UPDATE api_token SET revoked_at = \(now) WHERE account_id = \(accountID) AND revoked_at IS NULL RETURNING id", logger: self.logger).all({ $0 }).count
            // Codes issued before the revocation must not sign in after it.
            try await conn.query("UPDATE sign_in_code SET expires_at = \(now) WHERE account_id = \(accountID) AND used_at IS NULL AND expires_at > \(now)", logger: self.logger)
            // Delivered at commit on the events channel, so every server's open streams of
            // these tokens re-check them as promptly as they hear of new events.
            try await conn.query("SELECT pg_notify(\(Self.eventChannel), \(Self.tokensRevokedPayload))", logger: self.logger)
            return count
        }
        // Only once committed (CommitAnnouncements): a write that threw changed nothing here; on
        // PostgreSQL a commit whose answer was lost still reaches every server by its NOTIFY.
        commits.announce(.tokensRevoked)
        return result
    }

    static let tokensRevokedPayload = "tokens-revoked"

    public func token(secretHash: Data) async throws -> APIToken? {
        try await mapped {
            try await self.db.query("SELECT id, account_id, created_at, revoked_at, expires_at FROM api_token WHERE secret_hash = \(secretHash)", logger: self.logger).all { row in
                let (id, account, created, revoked, expires) = try row.decode((String, String, Date, Date?, Date?).self)
                return APIToken(id: id, accountID: account, createdAt: created, revokedAt: revoked, expiresAt: expires)
            }.first
        }
    }

    // MARK: History

    public func events(rideID: String, after id: Int64) async throws -> [RideEvent] {
        try await mapped {
            try await self.db.rows(Prepared<ReadSQL.RideEvents>(rideID, id), logger: self.logger, RideEvent.init(row:))
        }
    }

    public func events(after id: Int64, limit: Int) async throws -> [RideEvent] {
        try await mapped {
            try await self.db.rows(Prepared<ReadSQL.EventsAfter>(id, limit), logger: self.logger, RideEvent.init(row:))
        }
    }

    public func lastEventID() async throws -> Int64 {
        try await mapped {
            try await self.db.query("SELECT COALESCE(MAX(id), 0)::int8 FROM ride_event", logger: self.logger).all { try $0.decode(Int64.self) }.first ?? 0
        }
    }

    // MARK: Cross-process wake-ups

    public var sharesEventsAcrossProcesses: Bool { true }

    public func listenForAppendedEvents(onListening: @escaping @Sendable () -> Void, onAppend: @escaping @Sendable (CrossProcessNotice) -> Void) async throws {
        // A connection of its own for as long as the caller listens, not one of the pools': a
        // pool has two, and every listener (one per server; in tests, one per server on a
        // shared store) would otherwise hold one of them for good.
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: listenerConfiguration, id: 0, logger: logger)
        } catch let error as PSQLError {
            throw StoreError.unavailable("event notifications: \(error.code)")
        }
        // However the listening ends, its connection is closed once, here, before the outcome.
        let ended: any Error
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await connection.listen(on: Self.eventChannel) { notifications in
                        onListening()
                        for try await notification in notifications {
                            if notification.payload == Self.tokensRevokedPayload {
                                onAppend(.tokensRevoked)
                            } else {
                                onAppend(.eventAppended(id: Int64(notification.payload) ?? 0))
                            }
                        }
                    }
                }
                // The listener only receives: a query now and then keeps its flow alive through
                // firewalls and finds a connection that stopped answering, which then ends
                // (closed, so the listen above ends too) and the caller listens again.
                group.addTask { [keepAliveInterval, logger] in
                    while true {
                        try await Task.sleep(for: keepAliveInterval)
                        do {
                            _ = try await withDeadline(ConnectionPools.keepAliveDeadline, timedOut: { StoreError.unavailable("event notifications: the connection stopped answering") }) {
                                try await connection.query("SELECT 1", logger: logger).collect().count
                            }
                        } catch {
                            try? await connection.close()
                            throw error
                        }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
            // The sequence only ends when the connection does.
            ended = StoreError.unavailable("event notifications: connection closed")
        } catch {
            ended = error
        }
        try? await connection.close()
        switch ended {
        case is CancellationError: return
        case let error as PSQLError: throw StoreError.unavailable("event notifications: \(error.code)")
        default: throw ended
        }
    }
}
