import Foundation
import RideStore
import TestSupport

/// The one "server plus accounts" fixture of the process tests: a real `ridebeacon serve` on a
/// fresh database (on port 0, reporting the port it bound), and the built binary's admin
/// commands on the same database. (`World` is the same in process.)
///
/// ```swift
/// let server = try await LiveServer()
/// let token = try await server.createAccount(role: "passenger", name: "Ana")
/// // … talk to server.baseURL as that passenger …
/// server.stop()
/// ```
public final class LiveServer: Sendable {
    public let server: ServeProcess
    public var database: String { server.database }
    public var port: Int { server.port }
    public var log: URL { server.log }
    public var baseURL: String { server.baseURL }

    /// `kind`: the store `serve` runs on; `prefix` names the database.
    public init(kind: StoreKind = .sqlite, prefix: String = "e2e") async throws {
        let database = try await kind.makeDatabase(prefix: prefix)
        // The schema first, as an operator's first `admin create-account` would (admin commands
        // refuse a database that is not there; serve and they must not race to migrate).
        await (try await StoreLocation.open(database, operationTimeout: StoreKind.testOperationTimeout)).close()
        server = try await ServeProcess(database: database)
    }

    public func stop() { server.stop() }

    /// A new account's token, from `ridebeacon admin create-account`.
    public func createAccount(role: String, name: String, vehicle: String? = nil) async throws -> String {
        var arguments = ["admin", "create-account", "--role", role, "--name", name, "--database", database]
        if let vehicle { arguments += ["--vehicle", vehicle] }
        return try await Self.run(arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs the binary; stdout, or an error carrying stderr when it fails.
    @discardableResult
    public static func run(_ arguments: [String]) async throws -> String {
        let result = try await ProcessRunner.ridebeacon(arguments)
        guard result.status == 0 else { throw FixtureError("ridebeacon \(arguments.first ?? ""): \(result.stderr)") }
        return result.stdout
    }
}
