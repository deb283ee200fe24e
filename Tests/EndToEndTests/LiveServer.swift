import Foundation
import Testing

/// A real `ridebeacon serve` on a temp SQLite file and a free port, and the built binary's
/// admin commands on the same database.
final class LiveServer: @unchecked Sendable {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let binary: URL? = {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [here, here.deletingLastPathComponent(), repository.appendingPathComponent(".build/debug")]
            .map { $0.appendingPathComponent("ridebeacon") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    let database: String
    let port: Int
    let log: URL
    private let process: Process

    init() async throws {
        let binary = try #require(Self.binary, "ridebeacon binary not found beside the tests")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        database = "sqlite:" + dir.appendingPathComponent("rides.sqlite").path
        _ = try Self.run(["admin", "list-accounts", "--database", database])  // creates the schema first
        log = dir.appendingPathComponent("serve.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--port", "0", "--database", database]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        port = try await Self.waitForPort(in: log)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    /// A new account's token, from `ridebeacon admin create-account`.
    func createAccount(role: String, name: String, vehicle: String? = nil) throws -> String {
        var arguments = ["admin", "create-account", "--role", role, "--name", name, "--database", database]
        if let vehicle { arguments += ["--vehicle", vehicle] }
        let output = try Self.run(arguments)
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs the binary; stdout, or an error carrying stderr when it fails.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        guard let binary = Self.binary else { throw CocoaError(.executableNotLoadable) }
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: String(decoding: stderr, as: UTF8.self)])
        }
        return String(decoding: stdout, as: UTF8.self)
    }

    static func waitForPort(in log: URL) async throws -> Int {
        for _ in 0..<400 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains(#""msg":"listening""#) }),
               let match = line.firstMatch(of: /"port":"(\d+)"/), let port = Int(match.1) {
                return port
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "server did not report its port"])
    }
}
