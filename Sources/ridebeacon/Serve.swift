import ArgumentParser
import Logging
import RideServer
import RideStore

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the ride server (HTTP API, live events, /health, /metrics) until SIGTERM or SIGINT."
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on.")
    var port = 8080

    @Option(help: "sqlite:PATH (one server) or postgres://user:password@host:port/database (several servers).")
    var database = StoreLocation.defaultValue

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Flag(help: "Mark the dispatcher page's session cookie Secure (TLS proxy that does not send X-Forwarded-Proto).")
    var secureCookies = false

    @Flag(help: "Add GET /bench/hello, a bare Hummingbird route the server benchmark compares against.")
    var benchRoutes = false

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        LoggingSystem.bootstrap { JSONLogHandler(label: $0, level: level) }
        let logger = Logger(label: "ridebeacon")
        let store = try await openStore(database)
        var configuration = RideServerConfiguration(host: host, port: port)
        configuration.closesStoreOnShutdown = true
        configuration.secureCookies = secureCookies
        configuration.benchmarkRoutes = benchRoutes
        logger.info("starting", metadata: ["database": .string(store.sharesEventsAcrossProcesses ? "postgresql" : "sqlite"),
                                           "address": .string("\(host):\(port)")])
        try await RideServer.makeApplication(store: store, configuration: configuration, logger: logger).runService()
        logger.info("stopped")
    }
}

/// Opens `--database`, turning store errors into one readable line.
func openStore(_ location: String) async throws -> any Store {
    do {
        return try await StoreLocation.open(location)
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
        case .idempotencyKeyReused(let key): "idempotency key \(key) was used for something else"
        case .invalid(let message), .unavailable(let message): message
        }
    }
}
