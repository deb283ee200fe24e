import ArgumentParser
import Foundation
import BeaconCore
import Logging
import RideServer
import RideStore

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the ride server (HTTP API, live events, /health, /metrics) until SIGTERM or SIGINT."
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on.")
    var port = 8080

    @Option(name: .customLong("database"), help: "sqlite:PATH (one server) or postgres://user:password@host:port/database (several servers). Default: RIDEBEACON_DATABASE (use it for a URL with a password: command lines are visible in ps), then sqlite:./ridebeacon.sqlite.")
    var databaseOption: String?

    var database: String { DatabaseLocation.resolve(databaseOption) }

    @OptionGroup var signInKey: SignInKeyOptions

    @Option(help: "Hours a passenger page sign-in lasts after its last use (1 to 720).")
    var webSessionHours = 12

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Flag(help: "Mark the dispatcher page's session cookie Secure (TLS proxy that does not send X-Forwarded-Proto).")
    var secureCookies = false

    @Flag(help: "Add GET /bench/hello, a bare Hummingbird route the server benchmark compares against.")
    var benchRoutes = false

    @Flag(help: "Load tests only: let one passenger hold many open requests and one driver many rides (normally one ride at a time).")
    var manyRidesPerAccount = false

    @Option(help: "Which touch proofs confirm a ride: mutual (both sides within 10 s) or passenger (the passenger's alone, for driver hardware that cannot scan).")
    var touchPolicy = "mutual"

    @Option(help: "Rotating beacon identity slot period in seconds (10 to 900); every client of this deployment must use the same.")
    var identityPeriod = RotatingIdentity.defaultPeriod

    @Option(help: "Days after a ride ends (completed, cancelled, or request withdrawn) before its pickup, drop-off and notes are erased (1 to 3650); checked hourly.")
    var locationRetentionDays = 30

    @Option(help: "Hours an Idempotency-Key's stored result is kept (1 to 8760); a retry after that is a new request. Purged hourly.")
    var idempotencyRetentionHours = 24

    @Option(help: "Open event streams one token may hold at once (1 to 1000); the next is refused 429 too_many_streams.")
    var maxStreamsPerToken = 8

    @Option(help: "Seconds a bearer token's account is reused without a database lookup (0 to 1; 0 looks up every request). A revocation through another server or the admin CLI takes effect here within this time.")
    var tokenCacheSeconds = 1.0

    @Option(help: "Failed authentications allowed per minute, per client address and per presented token, before 429.")
    var authFailuresPerMinute = 20

    @Option(help: "Failed sign-ins with a code allowed per minute across the whole server (all addresses together) before 429.")
    var signInFailuresPerMinute = 60

    @Option(help: "Touch proofs allowed per minute per token before 429.")
    var touchProofsPerMinute = 20

    @Option(help: "Touch proofs allowed per minute per client address before 429.")
    var touchProofsPerMinutePerAddress = 120

    @Option(help: "Seconds a connection's first request head may take to arrive complete before the connection is closed (1 to 300).")
    var requestHeadTimeoutSeconds = 10

    @Option(help: "Seconds a connection may read nothing while it waits for or reads a request before it is closed (1 to 3600); a response being written (an event stream) is not idle.")
    var idleTimeoutSeconds = 60

    @Option(help: "Open connections allowed per client address (IPv6 by /64, 1 to 100000); the next is closed at once. Not applied to loopback clients, nor with --client-address-header (the proxy's connections).")
    var maxConnectionsPerAddress = 64

    @Option(help: "Days a token from a sign-in code (ridebeacon sign-in, a device) works before the device needs a new code (1 to 3650).")
    var signInTokenDays = 90

    @Option(help: "A file holding the bearer token /metrics wants (Prometheus: authorization credentials_file). Without it /metrics answers only this machine.")
    var metricsTokenFile: String?

    @Option(help: "Behind a reverse proxy: the header carrying the client's address (its last value is used), e.g. X-Forwarded-For. Only when clients cannot bypass the proxy.")
    var clientAddressHeader: String?

    @Option(help: "Threads the server's tasks run on: event-loops (NIO's, where its sockets and database connections live: fewer thread hops per request) or swift-pool (Swift's cooperative pool beside them).")
    var threads = ServerThreads.eventLoops.rawValue

    func validate() throws {
        guard ServerThreads(rawValue: threads) != nil else {
            throw ValidationError("--threads must be \(ServerThreads.allCases.map(\.rawValue).joined(separator: " or ")), not '\(threads)'")
        }
        guard TouchPolicy(rawValue: touchPolicy) != nil else { throw ValidationError("--touch-policy must be mutual or passenger, not '\(touchPolicy)'") }
        guard RotatingIdentity.periodRange.contains(identityPeriod) else {
            throw ValidationError("--identity-period must be 10 to 900 seconds, not \(identityPeriod)")
        }
        guard LocationRetention.days.contains(locationRetentionDays) else {
            throw ValidationError("--location-retention-days must be 1 to 3650, not \(locationRetentionDays)")
        }
        guard IdempotencyRetention.hours.contains(idempotencyRetentionHours) else {
            throw ValidationError("--idempotency-retention-hours must be 1 to 8760, not \(idempotencyRetentionHours)")
        }
        guard (1...1000).contains(maxStreamsPerToken) else {
            throw ValidationError("--max-streams-per-token must be 1 to 1000, not \(maxStreamsPerToken)")
        }
        guard (1...720).contains(webSessionHours) else {
            throw ValidationError("--web-session-hours must be 1 to 720, not \(webSessionHours)")
        }
        guard (1...300).contains(requestHeadTimeoutSeconds) else {
            throw ValidationError("--request-head-timeout-seconds must be 1 to 300, not \(requestHeadTimeoutSeconds)")
        }
        guard (1...3600).contains(idleTimeoutSeconds) else {
            throw ValidationError("--idle-timeout-seconds must be 1 to 3600, not \(idleTimeoutSeconds)")
        }
        guard (1...100_000).contains(maxConnectionsPerAddress) else {
            throw ValidationError("--max-connections-per-address must be 1 to 100000, not \(maxConnectionsPerAddress)")
        }
        guard (1...3650).contains(signInTokenDays) else {
            throw ValidationError("--sign-in-token-days must be 1 to 3650, not \(signInTokenDays)")
        }
        guard (0...1).contains(tokenCacheSeconds) else {
            throw ValidationError("--token-cache-seconds must be 0 to 1, not \(tokenCacheSeconds)")
        }
        for (name, value) in [("--auth-failures-per-minute", authFailuresPerMinute), ("--touch-proofs-per-minute", touchProofsPerMinute),
                              ("--sign-in-failures-per-minute", signInFailuresPerMinute),
                              ("--touch-proofs-per-minute-per-address", touchProofsPerMinutePerAddress)] where !(1...100_000).contains(value) {
            throw ValidationError("\(name) must be 1 to 100000, not \(value)")
        }
    }

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        LoggingSystem.bootstrap { JSONLogHandler(label: $0, level: level) }
        let logger = Logger(label: "ridebeacon")
        if database.hasPrefix("sqlite:") {
            // Before opening: a file made now is 0600; one that exists keeps its mode.
            for file in SQLiteStore.filesReadableByOthers(path: String(database.dropFirst("sqlite:".count))) {
                logger.warning("database file is readable by other users; it holds ride keys and personal data: chmod 600 it",
                               metadata: ["file": .string(file.path), "mode": .string(file.mode)])
            }
        }
        // Before the store: a key file that cannot be used stops the server with its reason.
        let codeKey = try signInKey.key(database: database)
        let store = try await openStore(database, connections: PostgresStore.serverConnections)
        if store.sharesEventsAcrossProcesses {
            // Events whose writes committed but which a writer that then stopped (this server
            // before a crash or power cut, or another) left unsequenced get their ids before the
            // first request, so no history is read with a state change missing; the event hub
            // does the same whenever it (re)starts listening, and on its poll.
            do { try await store.sequenceEvents() } catch {
                logger.warning("sequencing staged events failed; the event hub's poll will retry", metadata: ["error": .string("\(error)")])
            }
        }
        var configuration = RideServerConfiguration(host: host, port: port)
        configuration.signInKey = codeKey
        configuration.webSessionLifetime = Double(webSessionHours) * 3600
        configuration.closesStoreOnShutdown = true
        configuration.secureCookies = secureCookies
        configuration.benchmarkRoutes = benchRoutes
        if manyRidesPerAccount { configuration.bookingRule = .unrestricted }
        configuration.touch = TouchProofConfiguration(policy: TouchPolicy(rawValue: touchPolicy) ?? .mutual, identityPeriod: identityPeriod)
        configuration.locationRetention = LocationRetention(days: locationRetentionDays)
        configuration.idempotencyRetention = IdempotencyRetention(hours: idempotencyRetentionHours)
        configuration.events.maxStreamsPerToken = maxStreamsPerToken
        configuration.tokenCacheLifetime = tokenCacheSeconds
        configuration.rateLimits.authenticationFailures = .perMinute(authFailuresPerMinute)
        configuration.rateLimits.signInFailuresServerWide = .perMinute(signInFailuresPerMinute)
        configuration.rateLimits.touchProofsPerToken = .perMinute(touchProofsPerMinute)
        configuration.rateLimits.touchProofsPerAddress = .perMinute(touchProofsPerMinutePerAddress)
        configuration.rateLimits.clientAddressHeader = clientAddressHeader
        configuration.connections.requestHeadTimeout = .seconds(requestHeadTimeoutSeconds)
        configuration.connections.idleTimeout = .seconds(idleTimeoutSeconds)
        configuration.connections.maxPerAddress = maxConnectionsPerAddress
        configuration.signInTokenLifetime = Double(signInTokenDays) * 86_400
        if let metricsTokenFile {
            let text = try String(contentsOfFile: metricsTokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.count >= 16 else { throw ValidationError("\(metricsTokenFile) must hold a token of at least 16 characters") }
            configuration.metricsToken = text
        }
        let tasksOnEventLoops = await ServerThreads.tasksRunOnEventLoops()
        logger.info("starting", metadata: ["database": .string(store.sharesEventsAcrossProcesses ? "postgresql" : "sqlite"),
                                           "address": .string("\(host):\(port)"), "touch_policy": .string(touchPolicy), "threads": .string(threads),
                                           "tasks_on_event_loops": .stringConvertible(tasksOnEventLoops),
                                           "identity_period_s": .stringConvertible(identityPeriod),
                                           "location_retention_days": .stringConvertible(locationRetentionDays)])
        try await RideServer.makeApplication(store: store, configuration: configuration, logger: logger).runService()
        logger.info("stopped")
    }
}

/// Opens `--database`, turning store errors into one readable line.
/// - Parameter connections: PostgreSQL connections kept open (`PostgresStore.serverConnections`
///   for `serve`).
func openStore(_ location: String, connections: Int = PostgresStore.commandConnections) async throws -> any Store {
    do {
        return try await StoreLocation.open(location, connections: connections)
    } catch let error as StoreError {
        throw ValidationError("cannot open \(location): \(error.readable)")
    }
}

extension StoreError {
    var readable: String {
        switch self {
        case .notFound(let what): "\(what) not found"
        case .illegalTransition(let from, let to): "the ride is \(from.rawValue); it cannot become \(to.rawValue)"
        case .alreadyTaken(let id): "ride request \(id) was already accepted"
        case .signInRefused(let why): "the sign-in code is \(why == .unknown ? "not one that was issued" : why.rawValue)"
        case .limitReached(let message): message
        case .busy(let role, let id): "this \(role.rawValue) already has an active ride or request (\(id))"
        case .idempotencyKeyReused(let key): "idempotency key \(key) was used for something else"
        case .invalid(let message), .unavailable(let message), .replayed(let message): message
        }
    }
}
