import PostgresNIO

/// The connection pool's timers, kept short on purpose.
///
/// PostgresNIO's pool starts timers each time a connection goes back to the pool (a keep-alive
/// and, for connections beyond the minimum, an idle time-out) and cancels them at the next
/// lease. Swift's runtime keeps a cancelled `Task.sleep` (≈ 750 bytes) until its original
/// deadline, so the timers are a few seconds long (RELIABILITY.md, "Memory in the soak").
///
/// Issue 39 measured the keep-alive's per-release cost (a task group, two tasks and a dispatch
/// timer per lease; the read-mostly mix's server CPU per request 886 -> 682 µs without it and
/// with eight connections kept; BENCHMARKS.md, "Issue 39: pool timers"), but that setting
/// crashed both servers of the PostgreSQL durability smoke on a database restart: PostgresNIO
/// 1.33's pool trapped in `createNewDemandConnectionIfPossible` (its precondition that the
/// minimum is met) on a lease while the minimum was being re-established. Until that is
/// understood the pool keeps the settings the durability and power-loss smokes have passed with.
enum PoolTimers {
    /// Connections kept open when idle; only connections opened beyond them for a burst get an
    /// idle time-out.
    static let minimumConnections = 2
    static let maximumConnections = 20
    /// A connection beyond the minimum closes after this long unused.
    static let idleTimeout: Duration = .seconds(10)

    /// An idle connection proves it is alive this often (`SELECT 1`).
    static let keepAliveFrequency: Duration = .seconds(5)

    static func apply(to options: inout PostgresClient.Configuration.Options) {
        options.minimumConnections = minimumConnections
        options.maximumConnections = maximumConnections
        options.connectionIdleTimeout = idleTimeout
        options.keepAliveBehavior = .init(frequency: keepAliveFrequency)
    }
}
