import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Two linked Bumble virtual controllers (`python -m bumble.apps.controllers`), each an H4 TCP
/// server on 127.0.0.1, from the repository's `.venv` (`make test` creates it). Tests skip only
/// when it is missing and RIDEBEACON_REQUIRE_PEERS is unset.
public final class BumbleControllers: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns the controllers, one call at a time.
    public static let repositoryRoot = Repository.root
    public static let python: String? = Repository.venvPython?.path
    public static let required = ProcessInfo.processInfo.environment["RIDEBEACON_REQUIRE_PEERS"].map { !$0.isEmpty } ?? false
    /// For `.enabled(if:)`: run when Bumble is present, or when it is required (and then fail).
    public static let shouldRun = python != nil || required

    /// The controllers' TCP ports; index 0 and 1 are the two linked controllers.
    public let ports: [Int]
    private var process: Process?

    /// Starts the controllers app on two free ports (the app links exactly two).
    public init() throws {
        ports = [try FreePort.loopback(), try FreePort.loopback()]
        try start()
    }

    /// Bumble (or another peer) is not installed.
    public struct PeerMissing: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    /// Starts the controllers on `ports` (again, after `stop()`: a dongle replugged).
    public func start() throws {
        try FastLane.refuse("Bumble controllers", tag: "bumble")
        guard let python = Self.python else {
            throw PeerMissing(message: ".venv/bin/python with bumble is missing (run `make test`, which creates it)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-m", "bumble.apps.controllers"] + ports.map { "tcp-server:127.0.0.1:\($0)" }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        for port in ports {
            do { try FreePort.waitForListener(port: port) } catch {
                throw PeerMissing(message: "bumble controller did not listen on port \(port): \(error)")
            }
        }
    }

    /// SIGKILL: the controllers vanish with no goodbye, as an unplugged dongle does.
    public func kill() {
        guard let process else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        ChildExit.waitBlocking(for: process, seconds: 10)
        self.process = nil
    }

    /// Bumble's asyncio loop does not end on SIGTERM, so stopping is a kill too.
    public func stop() { kill() }

    deinit { kill() }

    /// The `--radio` value for controller `index`.
    public func radioArgument(_ index: Int) -> String { "h4:tcp:127.0.0.1:\(ports[index])" }

    public static func freePort() throws -> Int { try FreePort.loopback() }
    public static func procFile(_ path: String) -> String? { FreePort.procFile(path) }
}
