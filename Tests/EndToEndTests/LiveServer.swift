import Foundation
import RideBeaconTesting

/// A real `ridebeacon serve` on a temp SQLite file (on port 0, reporting the port it bound),
/// and the built binary's admin commands on the same database.
final class LiveServer: Sendable {
    static let repository = Repository.root
    static let binary = Repository.ridebeaconBinary

    let server: ServeProcess
    var database: String { server.database }
    var port: Int { server.port }
    var log: URL { server.log }
    var baseURL: String { server.baseURL }

    init() async throws {
        let database = try await StoreKind.sqlite.makeDatabase(prefix: "e2e")
        _ = try Self.run(["admin", "list-accounts", "--database", database])  // creates the schema first
        server = try await ServeProcess(database: database)
    }

    func stop() { server.stop() }

    /// A new account's token, from `ridebeacon admin create-account`.
    func createAccount(role: String, name: String, vehicle: String? = nil) throws -> String {
        var arguments = ["admin", "create-account", "--role", role, "--name", name, "--database", database]
        if let vehicle { arguments += ["--vehicle", vehicle] }
        return try Self.run(arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs the binary; stdout, or an error carrying stderr when it fails.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let result = try ProcessRunner.ridebeacon(arguments)
        guard result.status == 0 else { throw FixtureError("ridebeacon \(arguments.first ?? ""): \(result.stderr)") }
        return result.stdout
    }
}
