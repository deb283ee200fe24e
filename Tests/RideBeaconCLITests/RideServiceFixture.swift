import BeaconCore
import AsyncHTTPClient
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real `ridebeacon serve` on a temp SQLite database with one account per role, and the
/// environment the role commands run in (their own XDG_CONFIG_HOME, so no real settings leak in).
final class RideServiceFixture: @unchecked Sendable {
    let database: String
    let port: Int
    let passengerToken: String
    let driverToken: String
    let dispatcherToken: String
    let configHome: URL
    private let server: Process

    init() async throws {
        let database = try temporaryDatabase()
        self.database = database
        func account(_ role: String, _ name: String, _ extra: [String] = []) throws -> String {
            let created = try CLI.run(["admin", "create-account", "--role", role, "--name", name] + extra + ["--database", database])
            guard created.status == 0 else { throw FixtureError("create-account \(role): \(created.stderr)") }
            return created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        passengerToken = try account("passenger", "Ana")
        driverToken = try account("driver", "Ben", ["--vehicle", "blue Prius"])
        dispatcherToken = try account("dispatcher", "Dot")
        configHome = try CLI.temporaryDirectory()
        let log = configHome.appendingPathComponent("serve.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        server = Process()
        server.executableURL = try #require(CLI.binary)
        server.arguments = ["serve", "--port", "0", "--database", database]
        server.standardError = try FileHandle(forWritingTo: log)
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        port = try await waitForPort(in: log)
    }

    deinit {
        if server.isRunning {
            server.terminate()
            server.waitUntilExit()
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The role commands' environment: this server, `token`, and an empty config directory.
    func environment(token: String?, server: String? = nil) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = configHome.path
        environment["RIDEBEACON_SERVER"] = server ?? url
        environment.removeValue(forKey: "RIDEBEACON_TOKEN")
        if let token { environment["RIDEBEACON_TOKEN"] = token }
        return environment
    }

    func run(_ arguments: [String], as token: String?) throws -> CLI.Result {
        try CLI.run(arguments, environment: environment(token: token))
    }

    /// A ride as its driver sees it, decoded loosely (key and period for identity checks).
    func rideJSON(_ rideID: String) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: "\(url)/v1/rides/\(rideID)")
        request.headers.add(name: "Authorization", value: "Bearer \(driverToken)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (try JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    /// Posts the passenger's touch proof of `driver` (the driver's identity as observed now);
    /// returns the HTTP status and the body.
    func postPassengerProof(_ rideID: String, driver: BeaconIdentity, slot: UInt64) async throws -> (UInt, [String: Any]) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let proof: [String: Any] = [
            "uuid": driver.uuid.uuidString, "major": Int(driver.major), "minor": Int(driver.minor), "slot": Int(slot),
            "peakRssiDbm": -45.0, "samples": 20, "observedAt": formatter.string(from: Date()),
        ]
        var request = HTTPClientRequest(url: "\(url)/v1/rides/\(rideID)/touch-proofs")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(passengerToken)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(try JSONSerialization.data(withJSONObject: proof))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, (try JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:])
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A `ridebeacon` command left running (driver arrive, dispatcher --watch); output goes to
/// files the test reads while it runs.
final class BackgroundCommand: @unchecked Sendable {
    private let process = Process()
    private let directory: URL

    init(_ arguments: [String], environment: [String: String], stdin: Bool = false) throws {
        directory = try CLI.temporaryDirectory()
        let out = directory.appendingPathComponent("stdout"), err = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.executableURL = try #require(CLI.binary)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit { stop() }

    var stdout: String { (try? String(contentsOf: directory.appendingPathComponent("stdout"), encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: directory.appendingPathComponent("stderr"), encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// Waits (up to `seconds`) until `condition` holds for (stdout, stderr).
    @discardableResult
    func wait(seconds: Double = 30, until condition: (String, String) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(stdout, stderr) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return condition(stdout, stderr)
    }

    /// Waits for the command to exit; nil if it did not within `seconds`.
    func exitStatus(within seconds: Double = 30) async -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
