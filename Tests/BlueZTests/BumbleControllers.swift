import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Bumble virtual controllers (`python -m bumble.apps.controllers`) linked together, each
/// reachable as an H4 TCP server on 127.0.0.1. Found in the repository's `.venv` (`make test`
/// creates it). Tests skip only when it is missing and RIDEBEACON_REQUIRE_PEERS is unset.
final class BumbleControllers: @unchecked Sendable {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let python: String? = {
        let path = repositoryRoot.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
    static let required = ProcessInfo.processInfo.environment["RIDEBEACON_REQUIRE_PEERS"].map { !$0.isEmpty } ?? false
    /// For `.enabled(if:)`: run when Bumble is present, or when it is required (and then fail).
    static let shouldRun = python != nil || required

    let ports: [Int]
    private var process: Process?

    /// Starts the controllers app; `count` is 2 (the app links exactly two).
    init() throws {
        guard let python = Self.python else {
            throw PeerMissing(message: ".venv/bin/python with bumble is missing (run `make test`, which creates it)")
        }
        ports = [try Self.freePort(), try Self.freePort()]
        try start(python: python)
    }

    struct PeerMissing: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    func start(python: String? = BumbleControllers.python) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python!)
        process.arguments = ["-m", "bumble.apps.controllers"] + ports.map { "tcp-server:127.0.0.1:\($0)" }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        for port in ports { try Self.waitForListener(port: port) }
    }

    /// SIGKILL: the controllers vanish with no goodbye, as an unplugged dongle does.
    func kill() {
        guard let process else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Bumble's asyncio loop does not end on SIGTERM, so stopping is a kill too.
    func stop() { kill() }

    deinit { kill() }

    func radioArgument(_ index: Int) -> String { "h4:tcp:127.0.0.1:\(ports[index])" }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw PeerMissing(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits for a listening socket on the port by reading /proc/net/tcp. (A probe connection
    /// would race with the real one: Bumble's tcp-server has one client slot, and a probe's late
    /// disconnect clears it after the real client connected, so the controller's answers vanish.)
    /// A /proc file read to its end: they report size 0, and `String(contentsOfFile:)` then
    /// stops after the first 4 KiB — a busy machine's socket table is longer.
    static func procFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }

    static func waitForListener(port: Int, timeout: TimeInterval = 20) throws {
        let needle = String(format: ":%04X 00000000:0000 0A", port)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let table = procFile("/proc/net/tcp"), table.contains(needle) { return }
            usleep(50_000)
        }
        throw PeerMissing(message: "bumble controller did not listen on port \(port) within \(timeout) s")
    }

}
