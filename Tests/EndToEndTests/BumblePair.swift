import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Two linked Bumble virtual controllers, each an H4 TCP server on 127.0.0.1 (the same peer
/// BlueZTests/BumbleControllers.swift starts; test targets cannot share a source file).
/// Required, and so failing when missing, under RIDEBEACON_REQUIRE_PEERS (`make test`).
final class BumblePair: @unchecked Sendable {
    static let python: String? = {
        let path = LiveServer.repository.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
    static let required = ProcessInfo.processInfo.environment["RIDEBEACON_REQUIRE_PEERS"].map { !$0.isEmpty } ?? false
    static let shouldRun = python != nil || required

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    let ports: [Int]
    private var process = Process()

    init() throws {
        ports = [try Self.freePort(), try Self.freePort()]
        try start()
    }

    /// Starts the controllers on `ports` (again, after `stop()`: a dongle replugged).
    func start() throws {
        guard let python = Self.python else { throw Missing(description: ".venv/bin/python with bumble is missing (make test creates it)") }
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-m", "bumble.apps.controllers"] + ports.map { "tcp-server:127.0.0.1:\($0)" }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for port in ports { try Self.waitForListener(port: port) }
    }

    func radioArgument(_ index: Int) -> String { "h4:tcp:127.0.0.1:\(ports[index])" }

    /// Bumble's asyncio loop ignores SIGTERM.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw Missing(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Watches /proc/net/tcp rather than probing: Bumble's tcp-server has a single client slot
    /// that a probe connection would take from the radio.
    static func waitForListener(port: Int, timeout: TimeInterval = 20) throws {
        let needle = String(format: ":%04X 00000000:0000 0A", port)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let handle = FileHandle(forReadingAtPath: "/proc/net/tcp") {
                let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
                try? handle.close()
                if table.contains(needle) { return }
            }
            usleep(50_000)
        }
        throw Missing(description: "bumble controller did not listen on port \(port) within \(timeout) s")
    }
}
