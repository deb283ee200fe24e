import BeaconCore
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ridebeacon advertise|scan --radio bluez` as processes, finding the mock's bus through
/// DBUS_SYSTEM_BUS_ADDRESS exactly as they would find bluetoothd's.
@Suite("ridebeacon --radio bluez against dbusmock", .tags(.process), .enabled(if: BluezMock.shouldRun), .serialized)
struct BlueZCLITests {
    /// The mock's bus where the processes look for bluetoothd's.
    static func environment(_ mock: BluezMock) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": mock.address]) { $1 }
    }

    @Test("advertise registers the beacon with bluetoothd and unregisters it on Ctrl-C; scan prints one CSV row per report")
    func advertiseAndScan() async throws {
        let mock = try await BluezMock.start()
        let advertise = try BackgroundProcess(["advertise", "--radio", "bluez", "--uuid", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
                                               "--major", "4660", "--minor", "22136", "--measured-power", "-59", "--seconds", "60"],
                                              environment: Self.environment(mock))
        #expect(await mock.wait { try await mock.advertisingLog().count == 1 }, "stderr: \(advertise.stderr)")
        let registration = try #require(try await mock.advertisingLog().first)
        let data = ((registration["properties"] as? [String: Any])?["ManufacturerData"] as? [String: Any])?["76"] as? [Int]
        #expect(data == Beacons.first.manufacturerData.dropFirst(2).map(Int.init))
        advertise.signal(SIGINT)
        #expect(await advertise.exitStatus(within: 60) == 0, "stderr: \(advertise.stderr)")
        #expect(try await mock.advertisingLog().last?["event"] as? String == "unregister")

        // Stopped by Ctrl-C once the three rows are out, not by a --seconds window: on a loaded
        // machine a 4 s window once closed before the mock's reports reached it (no rows).
        let scan = try BackgroundProcess(["scan", "--radio", "bluez:hci0", "--seconds", "120"], environment: Self.environment(mock))
        #expect(await mock.wait { try await mock.discoveryFilter().discovering }, "stderr: \(scan.stderr)")
        for rssi: Int16 in [-51, -62, -73] {
            try await mock.report("C0:FF:EE:00:00:09", Beacons.rotated.manufacturerData, rssi: rssi)
        }
        #expect(await scan.wait(seconds: 60) { out, _ in out.split(separator: "\n").count >= 4 }, "stderr: \(scan.stderr)")
        scan.signal(SIGINT)
        #expect(await scan.exitStatus(within: 60) == 0, "stderr: \(scan.stderr)")
        let lines = scan.stdout.split(separator: "\n")
        #expect(lines.first == "t_s,address,uuid,major,minor,measured_power_dbm,rssi_dbm")
        #expect(lines.dropFirst().map { $0.split(separator: ",").dropFirst().joined(separator: ",") } == [-51, -62, -73].map {
            "C0:FF:EE:00:00:09,0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0,1,65535,-65,\($0)"
        })
        await mock.stop()
    }
}
