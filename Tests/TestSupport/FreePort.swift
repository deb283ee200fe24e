import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for peers that must be told their port up front (Bumble's controllers take
/// `tcp-server:HOST:PORT` and cannot report a port they chose). Servers we start ourselves
/// bind port 0 and report the bound port instead; never use this for them.
public enum FreePort {
    /// A port the kernel just handed out on 127.0.0.1 and released.
    public static func loopback() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw FixtureError("no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits for a listening socket on `port` by reading /proc/net/tcp. A probe connection would
    /// race with the real one: Bumble's tcp-server has one client slot, and a probe's late
    /// disconnect clears it after the real client connected, so the controller's answers vanish.
    public static func waitForListener(port: Int, timeout: TimeInterval = 20) throws {
        let needle = String(format: ":%04X 00000000:0000 0A", port)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let table = procFile("/proc/net/tcp"), table.contains(needle) { return }
            usleep(50_000)
        }
        throw FixtureError("nothing listened on port \(port) within \(timeout) s")
    }

    /// A /proc file read to its end: they report size 0, and `String(contentsOfFile:)` then
    /// stops after the first 4 KiB — a busy machine's socket table is longer.
    public static func procFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }
}
