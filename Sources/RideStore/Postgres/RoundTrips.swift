import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Every statement the PostgreSQL store sends and waits for, counted (issue 28): a BEGIN, a
/// COMMIT and each query in between are one round trip each. The store's public operations
/// name themselves (`RoundTrips.operation`), so the count is kept per operation too: the tests
/// assert each ride transition's count, and `make load` reads the totals the server logs at
/// shutdown. A sequencing run started by a write counts to that write's operation.
public final class RoundTrips: Sendable {
    public struct Tally: Sendable, Equatable, Codable {
        public var calls = 0
        public var roundTrips = 0
    }

    @TaskLocal static var operation: String?
    private let state = Mutex<(total: Int, byOperation: [String: Tally])>((0, [:]))

    /// Round trips since the store opened.
    public var total: Int { state.withLock { $0.total } }
    /// Calls and round trips of each named operation since the store opened.
    public var byOperation: [String: Tally] { state.withLock { $0.byOperation } }

    func count(_ n: Int = 1) {
        let operation = Self.operation
        state.withLock { state in
            state.total += n
            if let operation { state.byOperation[operation, default: Tally()].roundTrips += n }
        }
    }

    /// Runs `body` as one call of `name`, its round trips counted to it.
    func operation<T>(_ name: String, _ body: () async throws -> T) async rethrows -> T {
        state.withLock { $0.byOperation[name, default: Tally()].calls += 1 }
        return try await Self.$operation.withValue(name) { try await body() }
    }

    /// One line: total, then `operation=calls/roundTrips` sorted by name.
    public var summary: String {
        let (total, byOperation) = state.withLock { ($0.total, $0.byOperation) }
        let each = byOperation.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.calls)/\($0.value.roundTrips)" }
        return "total=\(total) " + each.joined(separator: " ")
    }
}

/// A pooled statement, counted: each query leases a connection, sends, and waits.
struct CountedClient: Sendable {
    let pools: ConnectionPools
    let roundTrips: RoundTrips

    /// Discardable as PostgresNIO's own `query` is: a statement run for its effect drops its rows.
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        roundTrips.count()
        return try await pools.lease { try await $0.query(query, logger: logger) }
    }

    func rows<SQL, T>(_ statement: Prepared<SQL>, logger: Logger, _ decode: (PostgresRow) throws -> T) async throws -> [T] {
        roundTrips.count()
        return try await pools.lease { try await $0.rows(statement, logger: logger, decode) }
    }
}

/// A transaction's connection, counted: what the store's writes are given instead of the
/// connection itself, so no statement escapes the count.
struct CountedConnection: Sendable {
    let connection: PostgresConnection
    let roundTrips: RoundTrips

    /// Discardable as PostgresNIO's own `query` is: a statement run for its effect drops its rows.
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        roundTrips.count()
        return try await connection.query(query, logger: logger)
    }

    func rows<SQL, T>(_ statement: Prepared<SQL>, logger: Logger, _ decode: (PostgresRow) throws -> T) async throws -> [T] {
        roundTrips.count()
        return try await connection.rows(statement, logger: logger, decode)
    }

    func run<SQL>(_ statement: Prepared<SQL>, logger: Logger) async throws {
        roundTrips.count()
        try await connection.run(statement, logger: logger)
    }
}
