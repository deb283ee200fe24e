import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ridebeacon advertise --radio` and `scan --radio` as a person runs them: two processes on two
/// linked Bumble virtual controllers (the repository's .venv), and the argument errors.
@Suite("advertise and scan --radio", .serialized)
struct RadioCLITests {
    static let python: String? = {
        let path = CLI.repository.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
    static let peersRequired = ProcessInfo.processInfo.environment["RIDEBEACON_REQUIRE_PEERS"].map { !$0.isEmpty } ?? false

    /// `python -m bumble.apps.controllers` with two linked controllers on free ports.
    final class Controllers {
        let process = Process()
        let ports: [Int]

        init() throws {
            let python = try #require(RadioCLITests.python, ".venv/bin/python with bumble is missing (run `make test`)")
            ports = try [Self.freePort(), Self.freePort()]
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-m", "bumble.apps.controllers"] + ports.map { "tcp-server:127.0.0.1:\($0)" }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // A listening socket in /proc/net/tcp; a probe connection would take Bumble's one client slot.
            for port in ports {
                let needle = String(format: ":%04X 00000000:0000 0A", port)
                let deadline = Date().addingTimeInterval(20)
                while !(FileHandle(forReadingAtPath: "/proc/net/tcp").map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? "").contains(needle) {
                    guard Date() < deadline else { throw CLIError("bumble did not listen on \(port)") }
                    usleep(50_000)
                }
            }
        }

        deinit {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

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
            guard ok else { throw CLIError("no free port") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    struct CLIError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let beacon = ["--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "4660", "--minor", "22136", "--measured-power", "-59"]

    @Test("advertise on one controller, scan on the other: one CSV line per sighting, columns as scan --btsnoop",
          .enabled(if: python != nil || peersRequired))
    func advertiseThenScan() throws {
        let bumble = try Controllers()
        let binary = try #require(CLI.binary)
        let advertiser = Process()
        advertiser.executableURL = binary
        advertiser.arguments = ["advertise", "--radio", "h4:tcp:127.0.0.1:\(bumble.ports[0])", "--interval-ms", "50", "--seconds", "30"] + Self.beacon
        advertiser.standardOutput = FileHandle.nullDevice
        advertiser.standardError = FileHandle.nullDevice
        try advertiser.run()
        defer {
            Glibc.kill(advertiser.processIdentifier, SIGINT)
            advertiser.waitUntilExit()
        }

        let scan = try CLI.run(["scan", "--radio", "h4:tcp:127.0.0.1:\(bumble.ports[1])", "--seconds", "4",
                                "--uuid", "e2c56db5-dffb-48d2-b060-d0f5a71096e0"])
        #expect(scan.status == 0, "stderr: \(scan.stderr)")
        let lines = scan.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.first == "t_s,address,uuid,major,minor,measured_power_dbm,rssi_dbm")
        #expect(scan.stdout.hasSuffix("\n"))
        let rows = lines.dropFirst()
        #expect(rows.count >= 5, "stdout: \(scan.stdout) stderr: \(scan.stderr)")
        for row in rows {
            let fields = row.split(separator: ",", omittingEmptySubsequences: false)
            #expect(fields.count == 7)
            #expect(fields.count == 7 && fields[0].wholeMatch(of: /\d+\.\d{6}/) != nil && fields[1].wholeMatch(of: /([0-9A-F]{2}:){5}[0-9A-F]{2}/) != nil)
            #expect(fields.dropFirst(2) == ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "4660", "22136", "-59", "-50"])
        }
    }

    @Test("a bad --radio is one line naming it, exit status non-zero, nothing on stdout",
          arguments: [["scan", "--radio", "bogus"], ["scan", "--radio", "h4:tcp:localhost"], ["scan", "--radio", "bluez:usb0"],
                      ["advertise", "--radio", "h4:tty:ttyUSB0"] + beacon])
    func badRadio(arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("ridebeacon: --radio \(arguments[2]): "))
    }

    @Test("bluez with no bus at DBUS_SYSTEM_BUS_ADDRESS: one line naming the radio and the address")
    func bluezWithoutBus() throws {
        let result = try CLI.run(["scan", "--radio", "bluez", "--seconds", "1"],
                                 environment: ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/ridebeacon-bus"]) { $1 })
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("ridebeacon: bluez:hci0: cannot reach the system bus"))
        #expect(result.stderr.contains("/nonexistent/ridebeacon-bus"))
    }
}
