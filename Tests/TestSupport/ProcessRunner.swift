import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a finished process printed and how it ended.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var stderrLines: [Substring] { stderr.split(separator: "\n") }
}

/// Runs processes to completion. Output goes to files, not pipes, so neither stream can fill
/// up and block the child; the wait suspends (`ChildExit`), so a running child never holds a
/// thread of the test pool.
public enum ProcessRunner {
    /// Runs `executable` and waits for it (a child still running after `limit` is killed and
    /// this throws).
    /// - Parameter environment: replaces the child's environment when given.
    /// - Parameter input: the child's stdin (else /dev/null).
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                           currentDirectory: URL? = nil, input: Data? = nil, limit: Duration = .seconds(300)) async throws -> ProcessResult {
        try FastLane.refuse("starting \(executable.lastPathComponent)", tag: "process")
        let directory = try Repository.temporaryDirectory("ridebeacon-run")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout"), errURL = directory.appendingPathComponent("stderr")
        let inURL = directory.appendingPathComponent("stdin")
        if let input { try input.write(to: inURL) }
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input == nil ? FileHandle.nullDevice : try FileHandle(forReadingFrom: inURL)
        if let environment { process.environment = environment }
        try process.run()
        let exit = try await ChildExit.wait(for: process, limit: limit)
        try out.close()
        try err.close()
        return ProcessResult(status: exit.status,
                             stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                             stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Runs the built `ridebeacon` from the repository root.
    public static func ridebeacon(_ arguments: [String], environment: [String: String]? = nil) async throws -> ProcessResult {
        guard let binary = Repository.ridebeaconBinary else { throw FixtureError("ridebeacon binary not found next to the tests") }
        return try await run(binary, arguments, environment: environment, currentDirectory: Repository.root)
    }
}

/// A process left running while the test talks to it (a server, `driver arrive`,
/// `dispatcher --watch`); its output goes to files the test reads while it runs.
public final class BackgroundProcess: @unchecked Sendable {
    // @unchecked: Process is thread-safe for the calls made here (isRunning, signals, wait).
    private let process = Process()
    /// Set when the test types into the process (`type(_:)`).
    private let input: Pipe?
    /// Where stdout and stderr are written.
    public let directory: URL

    /// Starts `executable` (the built `ridebeacon` when nil).
    /// - Parameter interactive: stdin is a pipe the test writes with `type(_:)`, else /dev/null.
    public init(_ arguments: [String], executable: URL? = nil, environment: [String: String]? = nil,
                interactive: Bool = false) throws {
        guard let executable = executable ?? Repository.ridebeaconBinary else {
            throw FixtureError("ridebeacon binary not found next to the tests")
        }
        try FastLane.refuse("starting \(executable.lastPathComponent)", tag: "process")
        let directory = try Repository.temporaryDirectory("ridebeacon-background")
        self.directory = directory
        let stdoutURL = directory.appendingPathComponent("stdout"), stderrURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        let input = interactive ? Pipe() : nil
        self.input = input
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
    }

    deinit { stop() }

    /// Writes `text` to the process's stdin (an `interactive` process only).
    public func type(_ text: String) {
        input?.fileHandleForWriting.write(Data(text.utf8))
    }

    public var stdoutURL: URL { directory.appendingPathComponent("stdout") }
    public var stderrURL: URL { directory.appendingPathComponent("stderr") }
    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    /// From the kernel (`ChildExit`), not Foundation, which can miss an exit.
    public var isRunning: Bool { ChildExit.peek(process) == nil }
    public var processIdentifier: Int32 { process.processIdentifier }
    /// How it ended; nil while it runs.
    public var exit: ChildExit? { ChildExit.peek(process) }

    /// Waits (up to `seconds`) until `condition` holds for (stdout, stderr).
    @discardableResult
    public func wait(seconds: Double = 30, until condition: (String, String) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(stdout, stderr) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return condition(stdout, stderr)
    }

    /// Waits for the process to exit; nil if it did not within `seconds`.
    public func exitStatus(within seconds: Double = 30) async -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        return exit?.status
    }

    /// Sends `signal` without waiting.
    public func signal(_ signal: Int32) {
        if isRunning { kill(process.processIdentifier, signal) }
    }

    /// SIGTERM, then waits for the exit; a process still running a minute later is killed and
    /// said so on stderr, so one that ignores SIGTERM (or hangs while exiting) cannot hang the
    /// suite. Tests that care how a command exits check `exitStatus(within:)` themselves.
    public func stop() {
        guard isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        guard ChildExit.waitBlocking(for: process, seconds: 60) == nil else { return }
        FileHandle.standardError.write(Data("BackgroundProcess: \(process.arguments?.joined(separator: " ") ?? "") did not exit within 60 s of SIGTERM; killed\n".utf8))
        kill(process.processIdentifier, SIGKILL)
        ChildExit.waitBlocking(for: process, seconds: 10)
    }
}

/// A real `ridebeacon serve --port 0` on `database`; the port is the one the server bound,
/// read from its `listening` log line (never a port picked beforehand).
public final class ServeProcess: Sendable {
    /// The server process; its stderr is the JSON log.
    public let process: BackgroundProcess
    public let database: String
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var log: URL { process.stderrURL }

    public init(database: String, extraArguments: [String] = [], environment: [String: String]? = nil) async throws {
        self.database = database
        process = try BackgroundProcess(["serve", "--port", "0", "--database", database] + extraArguments, environment: environment)
        port = try await Self.waitForPort(in: process)
    }

    /// The port from the server's `listening` log line.
    static func waitForPort(in process: BackgroundProcess) async throws -> Int {
        var port: Int?
        let found = await process.wait(seconds: 20) { _, stderr in
            guard let line = stderr.split(separator: "\n").first(where: { $0.contains(#""msg":"listening""#) }),
                  let match = line.firstMatch(of: /"port":"(\d+)"/) else { return false }
            port = Int(match.1)
            return true
        }
        guard found, let port else { throw FixtureError("the server did not report its port: \(process.stderr)") }
        return port
    }

    public func stop() { process.stop() }
}
