import Foundation
import Logging
import PostgresNIO

/// The many-box store: PostgreSQL through PostgresNIO's pooled client. Call `run()` for the
/// pool's lifetime (a task or a service group); `open(url:)` does that for simple uses.
public final class PostgresStore: Store {
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>

    /// `postgres://user[:password]@host[:port]/database`
    public init(url: String, logger: Logger = Logger(label: "ridebeacon.store.postgres")) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
              let host = components.host, let user = components.user else {
            throw StoreError.invalid("database URL must look like postgres://user:password@host:port/database")
        }
        let database = components.path.split(separator: "/").first.map(String.init)
        var config = PostgresClient.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                  password: components.password, database: database, tls: .disable)
        config.options.maximumConnections = 20
        config.options.connectTimeout = .seconds(3)
        let client = PostgresClient(configuration: config, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
    }

    deinit { runner.cancel() }

    public func migrate() async throws {
        try await mapped { try await PostgresMigrations.migrate(self.client, logger: self.logger) }
    }

    func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as StoreError { throw error } catch let error as PSQLError {
            // Server errors are the query's fault; anything else means the database is out of reach.
            if error.code == .server { throw error }
            throw StoreError.unavailable("database: \(error.code)")
        }
    }

    /// Runs `body` in a transaction and surfaces the error that ended it (PostgresNIO wraps
    /// it), so callers see `StoreError`s and server errors directly.
    func transaction<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await mapped {
            do {
                return try await self.client.withTransaction(logger: self.logger) { conn in try await body(conn) }
            } catch let error as PostgresTransactionError {
                throw error.closureError ?? error.commitError ?? error.beginError ?? error
            }
        }
    }

    // MARK: Accounts

    public func createAccount(_ new: NewAccount) async throws -> Account {
        let a = Account(id: StoreID.make(), role: new.role, displayName: new.displayName, vehicle: new.vehicle, createdAt: .storeNow)
        try await mapped {
            try await self.client.query("INSERT INTO account (id, role, display_name, vehicle, created_at) VALUES (\(a.id), \(a.role.rawValue), \(a.displayName), \(a.vehicle), \(a.createdAt))", logger: self.logger)
        }
        return a
    }

    public func account(id: String) async throws -> Account? {
        try await mapped {
            try await self.client.query("SELECT \(unescaped: PGColumns.account) FROM account WHERE id = \(id)", logger: self.logger).all(Account.init).first
        }
    }

    public func accounts() async throws -> [Account] {
        try await mapped {
            try await self.client.query("SELECT \(unescaped: PGColumns.account) FROM account ORDER BY created_at, id", logger: self.logger).all(Account.init)
        }
    }

    public func addToken(accountID: String, secretHash: Data) async throws -> APIToken {
        let token = APIToken(id: StoreID.make(), accountID: accountID, createdAt: .storeNow, revokedAt: nil)
        try await transaction { conn in
            guard try await conn.query("SELECT 1 FROM account WHERE id = \(accountID)", logger: self.logger).all({ $0 }).count == 1 else {
                throw StoreError.notFound("account \(accountID)")
            }
            try await conn.query("INSERT INTO api_token (id, account_id, secret_hash, created_at) VALUES (\(token.id), \(accountID), \(secretHash), \(token.createdAt))", logger: self.logger)
        }
        return token
    }

    public func authenticate(secretHash: Data) async throws -> Account? {
        try await mapped {
            try await self.client.query("""
                SELECT a.id, a.role, a.display_name, a.vehicle, a.created_at FROM account a
                JOIN api_token t ON t.account_id = a.id WHERE t.secret_hash = \(secretHash) AND t.revoked_at IS NULL
                """, logger: self.logger).all(Account.init).first
        }
    }

    public func revokeTokens(accountID: String) async throws -> Int {
        try await mapped {
            try await self.client.query("UPDATE api_token SET revoked_at = \(Date.storeNow) WHERE account_id = \(accountID) AND revoked_at IS NULL RETURNING id", logger: self.logger).all({ $0 }).count
        }
    }

    // MARK: History

    public func events(rideID: String, after id: Int64) async throws -> [RideEvent] {
        try await mapped {
            try await self.client.query("SELECT \(unescaped: PGColumns.event) FROM ride_event WHERE ride_id = \(rideID) AND id > \(id) ORDER BY id", logger: self.logger).all(RideEvent.init)
        }
    }

    public func events(after id: Int64, limit: Int) async throws -> [RideEvent] {
        try await mapped {
            try await self.client.query("SELECT \(unescaped: PGColumns.event) FROM ride_event WHERE id > \(id) ORDER BY id LIMIT \(limit)", logger: self.logger).all(RideEvent.init)
        }
    }
}
