import Foundation
import Testing

/// Runs the built `ridebeacon` binary and captures its output.
enum CLI {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("fixtures/traces")

    /// Next to the test bundle, else the usual debug build location.
    static let binary: URL? = {
        let candidates = [
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("ridebeacon"),
            Bundle.main.bundleURL.appendingPathComponent("ridebeacon"),
            repository.appendingPathComponent(".build/debug/ridebeacon"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    /// Output goes to files, not pipes, so neither stream can fill up and block the child.
    /// `environment` replaces the child's environment when given (role commands read RIDEBEACON_* and XDG_CONFIG_HOME).
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> Result {
        let binary = try #require(binary, "ridebeacon binary not found next to the tests")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout"), errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = repository
        process.standardOutput = out
        process.standardError = err
        if let environment { process.environment = environment }
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    static func hciFixtureText(_ name: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent("fixtures/hci/\(name)"), encoding: .utf8)
    }

    /// A scratch directory for files a test writes.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ridebeacon-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
