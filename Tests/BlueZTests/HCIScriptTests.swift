import BeaconCore
@testable import BlueZ
@testable import HCITransports
@testable import RadioCore
import Foundation
import TestSupport
import Testing

/// The HCI host state machine that h4 and hci share, against recorded controller bytes.
@Suite("HCI host against recorded controller bytes")
struct HCIScriptTests {
    @Test("legacy-only controller: exact init, legacy advertising and scanning commands; the reply's iBeacon decodes")
    func legacySession() async throws {
        let transport = try ScriptedTransport(fixture: "legacy-controller-session.h4.txt")
        let radio = try await HCIRadio.connect(transport)
        #expect(await radio.usesExtendedCommands == false)
        try await radio.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 100))
        let log = EventLog(radio.scan())
        #expect(await log.wait(seconds: 60) { !$0.sightings.isEmpty })
        #expect(transport.mismatches == [])
        #expect(transport.remaining == [])
        let sighting = try #require(log.sightings.first)
        #expect(sighting.beacon == Beacons.first)
        #expect(sighting.address == BDAddress("11:22:33:44:55:66"))
        #expect(sighting.rssi == -67)
        log.cancel()
    }

    @Test("capabilities: extended exactly when the LE Extended Advertising feature bit is set")
    func capabilities() {
        var commands = [UInt8](repeating: 0, count: 64)
        commands[36] = 0b0010_1100
        commands[37] = 0b0110_0000
        #expect(ControllerCapabilities(commands: commands, features: 1 << 12).extended)
        #expect(ControllerCapabilities(commands: commands, features: 1 << 12).listsExtendedCommands)
        #expect(!ControllerCapabilities(commands: commands, features: 0xFFFF_FFFF_FFFF_EFFF).extended)
        // Bumble: the feature bit without the commands listed.
        let bumble = ControllerCapabilities(commands: [UInt8](repeating: 0, count: 64), features: 1 << 12)
        #expect(bumble.extended && !bumble.listsExtendedCommands)
    }

    @Test("advertising interval in 0.625 ms units, clamped to 20 ms ... 10.24 s")
    func intervals() {
        #expect(HCIProcedures.intervalUnits(milliseconds: 100) == 160)
        #expect(HCIProcedures.intervalUnits(milliseconds: 20) == 32)
        #expect(HCIProcedures.intervalUnits(milliseconds: 5) == 32)
        #expect(HCIProcedures.intervalUnits(milliseconds: 20_000) == 0x4000)
    }

    @Test("--radio values parse as docs/ARCHITECTURE.md names them; bad ones say what was expected")
    func selections() throws {
        #expect(try RadioSelection(parsing: "bluez") == .bluez(adapter: "hci0"))
        #expect(try RadioSelection(parsing: "bluez:hci1") == .bluez(adapter: "hci1"))
        #expect(try RadioSelection(parsing: "hci:hci0") == .hci(device: 0))
        #expect(try RadioSelection(parsing: "h4:tcp:127.0.0.1:9000") == .h4(.tcp(host: "127.0.0.1", port: 9000)))
        #expect(try RadioSelection(parsing: "h4:tcp:[::1]:9000") == .h4(.tcp(host: "::1", port: 9000)))
        #expect(try RadioSelection(parsing: "h4:unix:/tmp/c.sock") == .h4(.unix(path: "/tmp/c.sock")))
        #expect(try RadioSelection(parsing: "h4:tty:/dev/ttyACM0") == .h4(.tty(path: "/dev/ttyACM0", baudRate: 115_200)))
        #expect(try RadioSelection(parsing: "h4:tty:/dev/ttyACM0:1000000") == .h4(.tty(path: "/dev/ttyACM0", baudRate: 1_000_000)))
        #expect(try RadioSelection(parsing: "sim") == .sim)
        for bad in ["h4:tcp:host", "hci:0", "h4:tty:/dev/ttyACM0:12345", "radio", "h4:serial:/dev/x"] {
            #expect(throws: RadioError.self) { try RadioSelection(parsing: bad) }
        }
    }

    @Test("sim: two in-process radios on one simulated channel see each other's beacon")
    func simulated() async throws {
        let air = SimAir()
        let advertiser = try await HCIRadio.connect(SimTransport(air: air))
        let scanner = try await HCIRadio.connect(SimTransport(air: air))
        let log = EventLog(scanner.scan())
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 20))
        #expect(await log.wait(seconds: 60) { $0.count(of: Beacons.first) >= 3 })
        #expect(log.sightings.first?.rssi == -60)
        await advertiser.shutdown()
        await scanner.shutdown()
    }

    @Test("a controller nobody listens for fails the first connect instead of hanging")
    func unreachable() async throws {
        let port = try BumbleControllers.freePort()
        await #expect(throws: (any Error).self) {
            _ = try await HCIRadio.connect(NIOTransport(.tcp(host: "127.0.0.1", port: port)))
        }
    }
}
