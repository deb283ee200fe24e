import PostgresNIO

/// The connection pool's timers: as few as possible, and short.
///
/// PostgresNIO's pool starts timers each time a connection goes back to the pool (a keep-alive
/// and, for connections beyond the minimum, an idle time-out) and cancels them at the next
/// lease. Each is a task group with two child tasks and a `Task.sleep` (a dispatch timer), so
/// at a thousand leases a second the timers cost more than the query: with the keep-alive off and
/// eight connections kept warm by `serve` (`PostgresStore.serverKeptConnections`) the read-mostly
/// mix's server CPU per request fell 886 -> 682 µs
/// (BENCHMARKS.md, "Issue 39: pool timers"). A cancelled `Task.sleep` is also kept (≈ 750 bytes)
/// until its original deadline, so the idle time-out stays a few seconds long (RELIABILITY.md,
/// "Memory in the soak").
///
/// Without the keep-alive an idle connection is not probed: one the database closed (a restart,
/// `pg_terminate_backend`, a crash) is dropped by the pool when its socket closes, as before; one
/// that went silent without a close (a host gone off the network) is found by the first request
/// that uses it, which fails at the operation deadline as any request on that host would.
public enum PoolTimers {
    /// Connections kept open when idle, with no timer at all; only connections opened beyond
    /// them for a burst get an idle time-out. A one-shot command or a test's store keeps two.
    public static let minimumConnections = 2
    static let maximumConnections = 20
    /// A connection beyond the minimum closes after this long unused.
    static let idleTimeout: Duration = .seconds(10)

    static func apply(to options: inout PostgresClient.Configuration.Options, keeping kept: Int) {
        options.minimumConnections = min(max(kept, 1), maximumConnections)
        options.maximumConnections = maximumConnections
        options.connectionIdleTimeout = idleTimeout
        options.keepAliveBehavior = nil
    }
}
