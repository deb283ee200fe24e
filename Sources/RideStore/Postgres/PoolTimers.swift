import PostgresNIO

/// The connection pool's timers, kept short on purpose.
///
/// PostgresNIO's pool starts two timers each time a connection goes back to the pool (a
/// keep-alive and, for connections beyond the minimum, an idle time-out) and cancels them at
/// the next lease. Swift's runtime keeps a cancelled `Task.sleep` (its job and dispatch timer,
/// ≈ 750 bytes) until the sleep's original deadline. With the defaults (30 s and 60 s) a server
/// doing 1 000 leases a second held tens of megabytes of dead timers, interleaved with request
/// memory, which kept the heap from shrinking (RELIABILITY.md, "Memory in the soak"). Memory
/// held this way is leases per second × timer length, so the timers are a few seconds long.
enum PoolTimers {
    /// Connections kept open when idle: the quiet path never waits for a connection set-up.
    static let minimumConnections = 2
    static let maximumConnections = 20
    /// A connection beyond the minimum closes after this long unused.
    static let idleTimeout: Duration = .seconds(10)
    /// An idle connection proves it is alive this often (`SELECT 1`): half-open connections
    /// are found within seconds, at a cost of well under one query a second per server.
    static let keepAliveFrequency: Duration = .seconds(5)

    static func apply(to options: inout PostgresClient.Configuration.Options) {
        options.minimumConnections = minimumConnections
        options.maximumConnections = maximumConnections
        options.connectionIdleTimeout = idleTimeout
        options.keepAliveBehavior = .init(frequency: keepAliveFrequency)
    }
}
