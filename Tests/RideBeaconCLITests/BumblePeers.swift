import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two linked Bumble virtual controllers (`python -m bumble.apps.controllers`) reachable as
/// H4 over TCP, from the repository's `.venv` (`make test` creates it); a slim copy of
/// BlueZTests' helper. Tests skip only when it is missing and RIDEBEACON_REQUIRE_PEERS is unset.
final class BumblePeers: @unchecked Sendable {
    static let python: String? = {
        let path = CLI.repository.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
    static let required = ProcessInfo.processInfo.environment["RIDEBEACON_REQUIRE_PEERS"].map { !$0.isEmpty } ?? false
    static let shouldRun = python != nil || required

    let ports: [Int]
    private let process = Process()

    init() throws {
        guard let python = Self.python else { throw FixtureError(".venv/bin/python with bumble is missing (run `make test`)") }
        ports = [try Self.freePort(), try Self.freePort()]
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-m", "bumble.apps.controllers"] + ports.map { "tcp-server:127.0.0.1:\($0)" }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for port in ports { try Self.waitForListener(port: port) }
    }

    /// Bumble's asyncio loop ignores SIGTERM.
    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    func radioArgument(_ index: Int) -> String { "h4:tcp:127.0.0.1:\(ports[index])" }

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
        guard ok else { throw FixtureError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Reads /proc/net/tcp rather than probing: Bumble's tcp-server has one client slot, and a
    /// probe's late disconnect would clear it under the real client.
    static func waitForListener(port: Int) throws {
        let needle = String(format: ":%04X 00000000:0000 0A", port)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let handle = FileHandle(forReadingAtPath: "/proc/net/tcp") {
                let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
                try? handle.close()
                if table.contains(needle) { return }
            }
            usleep(50_000)
        }
        throw FixtureError("bumble controller did not listen on port \(port)")
    }
}
