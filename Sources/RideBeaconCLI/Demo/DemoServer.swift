import Foundation
import Logging
import RideServer
import RideStore

/// The real ride server, in process, on a SQLite file in a temporary directory and a loopback
/// port: what `ridebeacon demo` talks to over HTTP like any client.
final class DemoServer: Sendable {
    let store: any Store
    let port: Int
    let directory: URL
    private let task: Task<Void, any Error>

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ridebeacon-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try await StoreLocation.open("sqlite:" + directory.appendingPathComponent("rides.sqlite").path)
        self.store = store
        // The demo's own output is the transcript: the server's JSON logs are not shown.
        let logger = Logger(label: "ridebeacon.demo.server") { _ in SwiftLogNoOpLogHandler() }
        // Port 0: the kernel picks the port as the server binds it, and the server reports it.
        let (bound, reportPort) = AsyncStream.makeStream(of: Int.self)
        var configuration = RideServerConfiguration(host: "127.0.0.1", port: 0)
        // The walk runs in virtual time, a minute in about a second: the server's 10 s between
        // locator requests would refuse by wall clock what is half a minute apart in the walk
        // (and make the same seed give different walks). The guide's own 30 s spacing remains.
        configuration.locator.minimumInterval = 0
        configuration.onListening = { port in
            reportPort.yield(port)
            reportPort.finish()
        }
        let app = RideServer.makeApplication(store: store, configuration: configuration, logger: logger)
        let task = Task {
            // A server that fails to start ends the stream, so the wait below ends too.
            defer { reportPort.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        self.task = task
        var ports = bound.makeAsyncIterator()
        guard let port = await ports.next() else {
            await store.close()
            if case .failure(let error) = await task.result { throw error }
            throw CommandLineFailure("demo: the ride server stopped before it listened")
        }
        self.port = port
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// A new account and its API token, straight in the store (as `admin create-account` does).
    func createAccount(role: Role, name: String, vehicle: Vehicle? = nil) async throws -> String {
        let account = try await store.createAccount(NewAccount(role: role, displayName: name, vehicleDetails: vehicle))
        let secret = APITokenSecret()
        _ = try await store.addToken(accountID: account.id, secretHash: secret.hash, expiresAt: TokenExpiry.date(afterDays: 1))
        return secret.text
    }

    /// The operator override (`admin confirm-ride`): only used when this server cannot verify
    /// touch proofs yet, and the transcript says so.
    func confirmByOperator(rideID: String) async throws {
        _ = try await store.transition(rideID: rideID, to: .confirmed, by: "operator",
                                       detail: "ridebeacon demo: touch proofs not verified by this server; confirmed by operator override",
                                       idempotency: nil)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
        await store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
