import Foundation
import Logging
import PostgresNIO
import RideStore
import TestSupport

/// Which store a test runs against: SQLite always, PostgreSQL when `RIDEBEACON_TEST_POSTGRES_URL`
/// is set (`make test` starts a private server and always sets it; a bare `swift test` without
/// it runs the SQLite half only).
public enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres

    public var description: String { rawValue }

    /// The private test server's URL (a database the tests may create databases from).
    public static let postgresURL = ProcessInfo.processInfo.environment["RIDEBEACON_TEST_POSTGRES_URL"]
    /// The kinds this run can test: both under `make test`.
    public static var available: [StoreKind] { postgresURL == nil ? [.sqlite] : allCases }

    /// A fresh, empty database (a new PostgreSQL database, or a SQLite file in a new temporary
    /// directory) named by the `--database` value that opens it. Tests get one each, so they
    /// run in parallel without seeing each other.
    public func makeDatabase(prefix: String = "rb_test") async throws -> String {
        switch self {
        case .postgres:
            guard let base = Self.postgresURL, var url = URLComponents(string: base) else {
                throw FixtureError("RIDEBEACON_TEST_POSTGRES_URL is not a usable database URL")
            }
            let name = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
            try await TestPostgres.execute("CREATE DATABASE \(name)", at: base)
            url.path = "/\(name)"
            return url.string ?? base
        case .sqlite:
            return try Self.sqliteDatabase(prefix: prefix)
        }
    }

    /// A SQLite file (not created yet) in a new temporary directory, as a `--database` value.
    public static func sqliteDatabase(prefix: String = "rb_test") throws -> String {
        "sqlite:" + (try Repository.temporaryDirectory(prefix)).appendingPathComponent("rides.sqlite").path
    }

    /// A fresh database, opened and migrated, and the `--database` value that opens it again.
    public func makeStore(prefix: String = "rb_test") async throws -> (store: any Store, location: String) {
        let location = try await makeDatabase(prefix: prefix)
        return (try await StoreLocation.open(location, operationTimeout: Self.testOperationTimeout), location)
    }

    /// The stores tests open wait longer than the product's 5 s per operation: the whole suite
    /// runs at once on a busy two-core machine, where a healthy database can take seconds to
    /// answer. The deadline itself is StoreDeadlineTests' business (with its own short limit).
    public static let testOperationTimeout: Duration = .seconds(60)
}

/// Statements on the test PostgreSQL server outside any store (creating databases, and
/// reaching under a store to stage what an old or newer binary would have left).
public enum TestPostgres {
    /// Runs `sql` (one statement, no parameters) on the database `url` names, on a connection of its own.
    public static func execute(_ sql: String, at url: String) async throws {
        let connection = try await connect(at: url)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// A connection of its own to the database `url` names, for a test that holds a session
    /// (a lock, a LISTEN) beside a store; the caller closes it.
    public static func connect(at url: String) async throws -> PostgresConnection {
        try FastLane.refuse("a PostgreSQL connection", tag: "postgres")
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user else {
            throw FixtureError("not a postgres://user@host/database URL: \(url)")
        }
        let configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: components.path.split(separator: "/").first.map(String.init), tls: .disable)
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    }

    /// Only critical lines: the tests' own connections are not the subject.
    public static let logger: Logger = {
        var logger = Logger(label: "ridebeacon.test.postgres")
        logger.logLevel = .critical
        return logger
    }()
}
