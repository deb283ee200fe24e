import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import RideBeaconTesting
import Testing
@testable import RideStore

/// The store's PostgreSQL connections (`ConnectionPools`): the kept connections are all there
/// are, connections the database closed are replaced without a failed request, and a database
/// that refuses connections for a while under load leaves every pool working (PostgresNIO
/// 1.33's single pool with eight kept and no keep-alive trapped there; a pool with no minimum
/// left its queued requests waiting for good).
@Suite(.timeLimit(.minutes(3)))
struct ConnectionPoolsTests {
    @Test(.enabled(if: StoreKind.postgresURL != nil, "needs RIDEBEACON_TEST_POSTGRES_URL"))
    func theKeptConnectionsAreAllThereAreAndABurstWaitsForThem() async throws {
        let location = try await StoreKind.postgres.makeDatabase(prefix: "rb_pool")
        let store = try PostgresStore(url: location, operationTimeout: StoreKind.testOperationTimeout, connections: 3)
        #expect(store.pools.connections == 4, "rounded up to whole pools of two")
        // Twelve overlapping queries on four connections: all answered, in three waves.
        try await overlapping(12, "SELECT pg_sleep(0.3)", on: store)
        #expect(try await backends(store) == 4, "a burst opened connections beyond the kept four")
        await store.close()
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil, "needs RIDEBEACON_TEST_POSTGRES_URL"))
    func idleConnectionsAndTheListenerAreKeptAliveByOneTimer() async throws {
        let location = try await StoreKind.postgres.makeDatabase(prefix: "rb_pool")
        let store = try PostgresStore(url: location, operationTimeout: StoreKind.testOperationTimeout, connections: 4,
                                      keepAliveInterval: .seconds(1))
        let listening = Task { try? await store.listenForAppendedEvents(onListening: {}, onAppend: { _ in }) }
        // Nothing is asked of the store but this look at the server's sessions; yet every other
        // connection, the listener's too, runs the keep-alive (the listener's last statement
        // would otherwise stay its LISTEN). Looked at until it shows (a loaded machine can take
        // longer than one interval to connect the listener), for up to a minute.
        var others: [(String, Bool)] = []
        let deadline = ContinuousClock.now + .seconds(60)
        repeat {
            try await Task.sleep(for: .milliseconds(500))
            let rows = try await store.db.query("""
                SELECT query, (now() - state_change) < interval '2 seconds' FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """, logger: store.logger).collect()
            others = try rows.map { try $0.decode((String, Bool).self) }
        } while !(others.count == 4 && others.allSatisfy { $0.0 == "SELECT 1" && $0.1 }) && ContinuousClock.now < deadline
        #expect(others.count == 4, "3 idle pooled connections and the listener: \(others)")
        #expect(others.allSatisfy { $0.0 == "SELECT 1" && $0.1 }, "\(others)")
        listening.cancel()
        await store.close()
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil, "needs RIDEBEACON_TEST_POSTGRES_URL"))
    func idleConnectionsTheDatabaseClosedAreReplacedWithoutAFailedRequest() async throws {
        let location = try await StoreKind.postgres.makeDatabase(prefix: "rb_pool")
        let store = try PostgresStore(url: location, operationTimeout: StoreKind.testOperationTimeout)
        try await overlapping(2, "SELECT pg_sleep(0.2)", on: store)
        // Every other backend of this database goes, as in a restart or an operator's kill.
        let killed = try await store.db.query("""
            SELECT count(*)::int8 FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()) AS gone
            """, logger: store.logger).collect().first?.decode(Int.self) ?? 0
        #expect(killed >= 1, "no idle connection was there to close")
        try await Task.sleep(for: .milliseconds(300))
        for round in 0..<4 {
            let rows = try await store.db.query("SELECT 1::int8", logger: store.logger).collect()
            #expect(try rows.first?.decode(Int.self) == 1, "query \(round) after the kill")
        }
        await store.close()
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil, "needs RIDEBEACON_TEST_POSTGRES_URL"))
    func aDatabaseThatRefusedConnectionsUnderLoadLeavesThePoolsWorking() async throws {
        let base = try #require(StoreKind.postgresURL)
        let location = try await StoreKind.postgres.makeDatabase(prefix: "rb_pool")
        let name = try #require(URLComponents(string: location)?.path.dropFirst())
        let store = try PostgresStore(url: location, operationTimeout: .seconds(2), connections: 8)
        try await overlapping(8, "SELECT pg_sleep(0.1)", on: store)
        // As in a restart: every connection goes and new ones are refused for a second and a
        // half, while 24 clients keep querying (their failures are expected, a trap is not).
        let load = Task {
            await withDiscardingTaskGroup { group in
                for _ in 0..<24 {
                    group.addTask {
                        // Through the store's deadline, as every request goes.
                        while !Task.isCancelled { try? await store.ping() }
                    }
                }
            }
        }
        try await TestPostgres.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS false", at: base)
        try await TestPostgres.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'", at: base)
        try await Task.sleep(for: .milliseconds(1_500))
        try await TestPostgres.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS true", at: base)
        try await Task.sleep(for: .seconds(2))
        load.cancel()
        await load.value
        // Every pool serves again: more overlapping queries than any one pool holds.
        var answered = 0
        for _ in 0..<20 where answered < 16 {
            answered = 0
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<16 {
                    group.addTask { (try? await store.ping()) != nil }
                }
                for try await ok in group where ok { answered += 1 }
            }
            if answered < 16 { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(answered == 16, "\(answered) of 16 queries answered after the database took connections again")
        await store.close()
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil, "needs RIDEBEACON_TEST_POSTGRES_URL"))
    func eachPoolsConnectionsLiveOnItsOwnEventLoop() async throws {
        let location = try await StoreKind.postgres.makeDatabase(prefix: "rb_pool")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        let pools = try ConnectionPools(Self.configuration(location), connections: 8, loops: loops, logger: Logger(label: "test"))
        let runners = pools.start(logger: Logger(label: "test"))
        do {
            #expect(pools.loops.map { ObjectIdentifier($0) } == [loops[0], loops[1], loops[0], loops[1]].map { ObjectIdentifier($0) })
            for (index, client) in pools.clients.enumerated() {
                // Both connections of the pool: each lease keeps its connection until the other holds one too.
                let holding = Arrivals()
                let held = try await withThrowingTaskGroup(of: (PostgresConnection.ID, ObjectIdentifier).self) { group in
                    for _ in 0..<ConnectionPools.connectionsPerPool {
                        group.addTask {
                            try await client.withConnection { connection in
                                await holding.arrive()
                                while await holding.count < ConnectionPools.connectionsPerPool { try await Task.sleep(for: .milliseconds(10)) }
                                _ = try await connection.query("SELECT 1", logger: Logger(label: "test")).collect()
                                return (connection.id, ObjectIdentifier(connection.eventLoop))
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(Set(held.map(\.0)).count == ConnectionPools.connectionsPerPool, "pool \(index): \(held)")
                #expect(Set(held.map(\.1)) == [ObjectIdentifier(pools.loops[index])], "pool \(index)'s connections on another loop")
            }
            // Through `lease`, as the store asks: a query from a loop goes to a pool on that loop.
            for loop in loops {
                let chosen = try await pools.lease(from: loop) { client in pools.clients.firstIndex { $0 === client } }
                #expect(chosen.map { pools.loops[$0] === loop } == true, "from loop \(loop) to pool \(String(describing: chosen))")
            }
        } catch {
            Issue.record(error)
        }
        for runner in runners {
            runner.cancel()
            await runner.value
        }
        try await group.shutdownGracefully()
    }

    @Test
    func aQueryFromAnEventLoopGoesToAPoolOnThatLoopWhileOneHasAConnectionFree() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        // Never started: choosing a pool connects nothing.
        let pools = try ConnectionPools(Self.configuration("postgres://nobody@127.0.0.1:1/none"), connections: 8, loops: loops, logger: Logger(label: "test"))
        // From each loop's own thread, as a task on `serve`'s event loops asks.
        func chosen(on loop: any EventLoop) throws -> Int { try loop.submit { pools.choose(from: MultiThreadedEventLoopGroup.currentEventLoop) }.wait() }
        let onLoop0 = try (0..<4).map { _ in try chosen(on: loops[0]) }
        // Two pools of two on loop 0: its four connections first, the least busy first.
        #expect(onLoop0 == [0, 2, 0, 2])
        // Both of loop 0's pools full: the least busy pool anywhere, which is on loop 1.
        #expect(pools.loops[try chosen(on: loops[0])] === loops[1])
        #expect(try chosen(on: loops[1]) == 3, "loop 1's free pool, though pool 1 was just taken from loop 0")
        pools.release(0)
        #expect(try chosen(on: loops[0]) == 0, "a connection free on the caller's loop again")
        // Off every loop (Swift's cooperative pool: tests, `serve --threads swift-pool`): the least busy.
        #expect(pools.choose(from: nil) == 1)
        try await group.shutdownGracefully()
    }

    private static func configuration(_ url: String) throws -> PostgresClient.Configuration {
        let components = try #require(URLComponents(string: url))
        return PostgresClient.Configuration(host: try #require(components.host), port: components.port ?? 5432,
                                            username: try #require(components.user), password: components.password,
                                            database: components.path.split(separator: "/").first.map(String.init), tls: .disable)
    }

    private func overlapping(_ count: Int, _ sql: String, on store: PostgresStore) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask { _ = try await store.db.query(PostgresQuery(unsafeSQL: sql), logger: store.logger).collect() }
            }
            try await group.waitForAll()
        }
    }

    /// Backends connected to the store's database (the counting query's own included).
    private func backends(_ store: PostgresStore) async throws -> Int {
        let rows = try await store.db.query("SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database()", logger: store.logger).collect()
        return try rows.first?.decode(Int.self) ?? 0
    }
}

/// Leases that have their connection, for a test that needs them all held at once.
private actor Arrivals {
    private(set) var count = 0
    func arrive() { count += 1 }
}
