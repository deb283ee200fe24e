import Foundation
import RideBeaconTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ridebeacon advertise --radio` and `scan --radio` as a person runs them: two processes on two
/// linked Bumble virtual controllers (the repository's .venv), and the argument errors.
@Suite("advertise and scan --radio", .tags(.bumble, .process), .serialized)
struct RadioCLITests {
    static let beacon = ["--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "--major", "4660", "--minor", "22136", "--measured-power", "-59"]

    @Test("advertise on one controller, scan on the other: one CSV line per sighting, columns as scan --btsnoop",
          .enabled(if: BumbleControllers.shouldRun))
    func advertiseThenScan() async throws {
        let bumble = try BumbleControllers()
        let advertiser = try BackgroundProcess(["advertise", "--radio", bumble.radioArgument(0), "--interval-ms", "50", "--seconds", "30"] + Self.beacon)
        defer {
            advertiser.signal(SIGINT)
            advertiser.stop()
        }

        let scan = try await CLI.run(["scan", "--radio", "h4:tcp:127.0.0.1:\(bumble.ports[1])", "--seconds", "4",
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
    func badRadio(arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("ridebeacon: --radio \(arguments[2]): "))
    }

    @Test("bluez with no bus at DBUS_SYSTEM_BUS_ADDRESS: one line naming the radio and the address")
    func bluezWithoutBus() async throws {
        let result = try await CLI.run(["scan", "--radio", "bluez", "--seconds", "1"],
                                 environment: ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/ridebeacon-bus"]) { $1 })
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("ridebeacon: bluez:hci0: cannot reach the system bus"))
        #expect(result.stderr.contains("/nonexistent/ridebeacon-bus"))
    }
}
