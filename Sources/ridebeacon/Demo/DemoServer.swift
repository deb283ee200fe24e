#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import RideServer
import RideStore

/// The real ride server, in process, on a SQLite file in a temporary directory and a loopback
/// port: what `ridebeacon demo` talks to over HTTP like any client.
final class DemoServer: @unchecked Sendable {
    let store: any Store
    let port: Int
    let directory: URL
    private var task: Task<Void, any Error>?

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ridebeacon-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try await StoreLocation.open("sqlite:" + directory.appendingPathComponent("rides.sqlite").path)
        port = try Self.freeLoopbackPort()
        // The demo's own output is the transcript: the server's JSON logs are not shown.
        let logger = Logger(label: "ridebeacon.demo.server") { _ in SwiftLogNoOpLogHandler() }
        let app = RideServer.makeApplication(store: store, configuration: RideServerConfiguration(host: "127.0.0.1", port: port),
                                             logger: logger)
        task = Task { try await app.runService(gracefulShutdownSignals: []) }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// A new account and its API token, straight in the store (as `admin create-account` does).
    func createAccount(role: Role, name: String, vehicle: String? = nil) async throws -> String {
        let account = try await store.createAccount(NewAccount(role: role, displayName: name, vehicle: vehicle))
        let secret = APITokenSecret()
        _ = try await store.addToken(accountID: account.id, secretHash: secret.hash)
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
        task?.cancel()
        _ = try? await task?.value
        await store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A port the kernel just handed out and released (the server binds it a moment later).
    static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw CommandLineFailure("demo: no free loopback port for the server") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
