import BeaconCore
import Foundation
import RideBeaconTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ridebeacon advertise|scan --radio bluez` as processes, finding the mock's bus through
/// DBUS_SYSTEM_BUS_ADDRESS exactly as they would find bluetoothd's.
@Suite("ridebeacon --radio bluez against dbusmock", .enabled(if: BluezMock.shouldRun), .serialized)
struct BlueZCLITests {
    /// `swift build --build-tests` builds the executable next to the test bundle.
    static let binary: URL? = {
        let candidates = [
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("ridebeacon"),
            Bundle.main.bundleURL.appendingPathComponent("ridebeacon"),
            BumbleControllers.repositoryRoot.appendingPathComponent(".build/debug/ridebeacon"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    final class Command: @unchecked Sendable {
        let process = Process()
        let stdout: URL, stderr: URL

        init(_ arguments: [String], bus: String, in directory: URL) throws {
            process.executableURL = try #require(BlueZCLITests.binary, "ridebeacon is not built")
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": bus]) { $1 }
            stdout = directory.appendingPathComponent("\(arguments[0]).out")
            stderr = directory.appendingPathComponent("\(arguments[0]).err")
            for url in [stdout, stderr] { FileManager.default.createFile(atPath: url.path, contents: nil) }
            let out = try FileHandle(forWritingTo: stdout), err = try FileHandle(forWritingTo: stderr)
            process.standardOutput = out
            process.standardError = err
            try process.run()
            try out.close()
            try err.close()
        }

        func text(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

        func interruptAndWait() {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGINT) }
            process.waitUntilExit()
        }
    }

    @Test("advertise registers the beacon with bluetoothd and unregisters it on Ctrl-C; scan prints one CSV row per report")
    func advertiseAndScan() async throws {
        let mock = try await BluezMock.start()
        let advertise = try Command(["advertise", "--radio", "bluez", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
                                     "--major", "4660", "--minor", "22136", "--measured-power", "-59", "--seconds", "60"],
                                    bus: mock.address, in: mock.directory)
        #expect(await mock.wait { try await mock.advertisingLog().count == 1 }, "stderr: \(advertise.text(advertise.stderr))")
        let registration = try #require(try await mock.advertisingLog().first)
        let data = ((registration["properties"] as? [String: Any])?["ManufacturerData"] as? [String: Any])?["76"] as? [Int]
        #expect(data == Beacons.first.manufacturerData.dropFirst(2).map(Int.init))
        advertise.interruptAndWait()
        #expect(advertise.process.terminationStatus == 0)
        #expect(try await mock.advertisingLog().last?["event"] as? String == "unregister")

        let scan = try Command(["scan", "--radio", "bluez:hci0", "--seconds", "4"], bus: mock.address, in: mock.directory)
        #expect(await mock.wait { try await mock.discoveryFilter().discovering }, "stderr: \(scan.text(scan.stderr))")
        for rssi: Int16 in [-51, -62, -73] {
            try await mock.report("C0:FF:EE:00:00:09", Beacons.rotated.manufacturerData, rssi: rssi)
        }
        scan.process.waitUntilExit()
        #expect(scan.process.terminationStatus == 0)
        let lines = scan.text(scan.stdout).split(separator: "\n")
        #expect(lines.first == "t_s,address,uuid,major,minor,measured_power_dbm,rssi_dbm")
        #expect(lines.dropFirst().map { $0.split(separator: ",").dropFirst().joined(separator: ",") } == [-51, -62, -73].map {
            "C0:FF:EE:00:00:09,0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0,1,65535,-65,\($0)"
        })
        await mock.stop()
    }
}
