import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The store's PostgreSQL connections: pools of exactly two connections each, kept open, with
/// no timer started when a connection goes back; each pool's connections on one event loop, and
/// a query goes to a pool on its caller's loop while one has a connection free, else to the
/// least busy pool.
///
/// Why the loops: `serve` runs its tasks on NIO's event loops, and a task continues on the loop
/// that resumed it. A query on another loop's connection is written by that loop (a hop there)
/// and its answer resumes the task there, which then writes the HTTP response back on the
/// request's own loop (a hop back): two cross-thread wake-ups per query on a quiet server.
/// Issue 39 measured the affinity: context switches per read-mostly request 4.1 -> 3.0 (its CPU
/// per request unchanged); two closed-loop writers' p50 2.70 -> 1.88 ms; at saturation (every
/// thread busy, no wake-ups to save) no gain (BENCHMARKS.md). With more loops than pools (more
/// than four cores for `serve`'s eight connections) the loops beyond them have no pool of their
/// own and their queries go to the least busy pool, as before.
///
/// Why not one PostgresNIO pool: its pool starts timers each time a connection goes back (a
/// keep-alive, and an idle time-out for connections beyond the minimum), each a task group,
/// two tasks and a dispatch timer armed and cancelled per query; issue 39 measured them at
/// 886 -> 682 µs of server CPU per request on the read-mostly mix (BENCHMARKS.md). Turning the
/// keep-alive off and keeping eight connections in one pool crashed PostgresNIO 1.33 on a
/// database restart: after a failed reconnect it drops all but one connecting attempt, refills
/// one at a time, and a lease then trips `createNewDemandConnectionIfPossible`'s precondition
/// that the minimum is met. A pool whose minimum and maximum are both two has no demand
/// connections and is back at its minimum with the one connection it gets back. (A pool with
/// no minimum, tried for bursts, left requests queued in it waiting for good after the database
/// refused connections for a moment: no connection was being made for them.)
///
/// Instead of the per-release keep-alive, one timer for all: every `keepAliveInterval` each pool
/// runs two overlapping `SELECT 1`, so no kept connection sits idle long enough for a firewall's
/// or NAT's idle time-out to drop it silently (nothing below TCP would notice: PostgresNIO sets
/// no TCP keep-alive, and a query on a silently dropped connection waits for TCP to give up).
///
/// The trade-off: no connections beyond the kept ones (a burst waits in the pools; the two
/// cores PostgreSQL runs on here are busy with eight). Connections PostgreSQL closes (a
/// restart, an operator's kill) are replaced at once. deploy/README.md says so.
final class ConnectionPools: Sendable {
    static let connectionsPerPool = 2
    /// Well under the common idle time-outs of stateful firewalls and NATs (AWS's NAT gateway:
    /// 350 s; Linux conntrack's established default is days, cloud load balancers 60-350 s).
    static let keepAliveInterval: Duration = .seconds(45)
    /// How long a keep-alive `SELECT 1` may take before its connection counts as not answering.
    static let keepAliveDeadline: Duration = .seconds(5)

    let clients: [PostgresClient]
    /// The event loop each pool's connections live on (pool i on loop i mod the loop count).
    let loops: [any EventLoop]
    /// The pools on each loop, by the loop's identity.
    private let poolsOnLoop: [ObjectIdentifier: [Int]]
    /// Queries in flight on each pool.
    private let inFlight: Mutex<[Int]>

    /// - Parameters:
    ///   - connections: rounded up to a whole number of pools of two.
    ///   - loops: the event loops the pools' connections are spread over, each pool's on one;
    ///     by default every loop of the group `serve` runs its requests (and, with
    ///     `--threads event-loops`, its tasks) on, so a query can go out and come back on the
    ///     thread its request is already on.
    init(_ configuration: PostgresClient.Configuration, connections: Int,
         loops: [any EventLoop] = Array(MultiThreadedEventLoopGroup.singleton.makeIterator()), logger: Logger) {
        var configuration = configuration
        configuration.options.minimumConnections = Self.connectionsPerPool
        configuration.options.maximumConnections = Self.connectionsPerPool
        configuration.options.keepAliveBehavior = nil
        precondition(!loops.isEmpty, "ConnectionPools needs an event loop for its connections")
        let count = max(1, (connections + Self.connectionsPerPool - 1) / Self.connectionsPerPool)
        let poolLoops = (0..<count).map { loops[$0 % loops.count] }
        clients = poolLoops.map { PostgresClient(configuration: configuration, eventLoopGroup: $0, backgroundLogger: logger) }
        self.loops = poolLoops
        poolsOnLoop = Dictionary(grouping: poolLoops.indices) { ObjectIdentifier(poolLoops[$0]) }
        inFlight = Mutex(Array(repeating: 0, count: count))
    }

    var connections: Int { clients.count * Self.connectionsPerPool }

    /// Starts every pool, each in a detached task of its own that runs it until cancelled, so
    /// a query right after opening the store does not find a pool not yet running; and the
    /// keep-alive.
    func start(keepAliveEvery interval: Duration = keepAliveInterval, logger: Logger) -> [Task<Void, Never>] {
        let pools = clients
        let keepAlive = Task.detached {
            while (try? await Task.sleep(for: interval)) != nil {
                await withDiscardingTaskGroup { group in
                    for pool in pools {
                        for _ in 0..<Self.connectionsPerPool {
                            group.addTask {
                                // Bounded: a connection that stopped answering must not stop the others' keep-alive.
                                _ = try? await withDeadline(Self.keepAliveDeadline, timedOut: { CancellationError() }) {
                                    try await pool.query("SELECT 1", logger: logger).collect().count
                                }
                            }
                        }
                    }
                }
            }
        }
        return pools.map { pool in Task.detached { await pool.run() } } + [keepAlive]
    }

    /// Runs `body` with a pool (`choose(from:)`, by default from the loop the caller runs on);
    /// `body` leases its connection from it.
    func lease<T>(from caller: (any EventLoop)? = MultiThreadedEventLoopGroup.currentEventLoop,
                  _ body: (PostgresClient) async throws -> T) async throws -> T {
        let index = choose(from: caller)
        defer { release(index) }
        return try await body(clients[index])
    }

    /// The pool a query from `caller`'s thread goes to, counted in flight until released: the
    /// least busy pool on the caller's own event loop while it has a connection free (the query
    /// then leaves and its answer returns without waking another thread: two cross-thread hops
    /// fewer per query), otherwise the least busy pool of all.
    func choose(from caller: (any EventLoop)?) -> Int {
        let local = caller.flatMap { poolsOnLoop[ObjectIdentifier($0)] } ?? []
        return inFlight.withLock { counts in
            let nearest = local.min { counts[$0] < counts[$1] }
            let chosen = nearest.flatMap { counts[$0] < Self.connectionsPerPool ? $0 : nil }
                ?? counts.indices.min { counts[$0] < counts[$1] }!
            counts[chosen] += 1
            return chosen
        }
    }

    /// Ends what `choose(from:)` counted.
    func release(_ index: Int) {
        inFlight.withLock { counts in
            precondition(counts[index] > 0, "a pool released more often than chosen")
            counts[index] -= 1
        }
    }

    /// The first pool, for work that needs no balancing (migrations).
    var first: PostgresClient { clients[0] }
}
