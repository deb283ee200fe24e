import BeaconCore
@testable import BlueZ
@testable import HCITransports
@testable import RadioCore
import Foundation
import TestSupport
import Testing

/// The bluez radio against dbusmock's bluez5 template on a private dbus-daemon.
@Suite("bluez radio against dbusmock's bluez5 template", .tags(.process), .enabled(if: BluezMock.shouldRun), .serialized)
struct BlueZRadioTests {
    static let options = BlueZRadio.Options(initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(400))

    static func radio(_ mock: BluezMock, adapter: String = "hci0") async throws -> BlueZRadio {
        var options = options
        options.busAddress = mock.address
        return try await BlueZRadio.connect(adapter: adapter, options: options)
    }

    /// The iBeacon payload BlueZ keeps under company 0x004C, and the manufacturer data on air.
    static func payload(_ beacon: IBeacon) -> [Int] { beacon.manufacturerData.dropFirst(2).map(Int.init) }

    static func registrations(_ log: [[String: Any]]) -> [[String: Any]] { log.filter { $0["event"] as? String == "register" } }

    static func beacon(in registration: [String: Any]) -> [Int]? {
        ((registration["properties"] as? [String: Any])?["ManufacturerData"] as? [String: Any])?["76"] as? [Int]
    }

    @Test("scanning sets the discovery filter (LE, duplicate data, RSSI floor) and starts discovery; the last consumer stops it")
    func discoveryFilter() async throws {
        let mock = try await BluezMock.start()
        let radio = try await Self.radio(mock)
        let log = EventLog(radio.scan())
        #expect(await mock.wait { try await mock.discoveryFilter().discovering })
        let filter = try #require(try await mock.discoveryFilter().filter)
        #expect(filter["Transport"] as? String == "le")
        #expect(filter["DuplicateData"] as? Bool == true)
        #expect(filter["RSSI"] as? Int == -120)
        #expect(filter.count == 3)
        log.cancel()
        #expect(await mock.wait { try await !mock.discoveryFilter().discovering })
        await radio.shutdown()
        await mock.stop()
    }

    @Test("Device1 RSSI and ManufacturerData changes arrive as sightings, in order, with the iBeacon decoded")
    func propertyChangesReachTheStream() async throws {
        let mock = try await BluezMock.start()
        let radio = try await Self.radio(mock)
        let log = EventLog(radio.scan())
        #expect(await mock.wait { try await mock.discoveryFilter().discovering })
        for rssi: Int16 in [-61, -75, -48] {
            try await mock.report("C0:FF:EE:00:00:01", Beacons.first.manufacturerData, rssi: rssi)
        }
        try await mock.report("C0:FF:EE:00:00:02", [0x59, 0x00, 0x01, 0x02], rssi: -70)   // Nordic, not a beacon
        // AddDevice's InterfacesAdded comes first (RSSI -79, no data); the report follows it.
        #expect(await log.wait { $0.sightings.contains { $0.address == BDAddress("C0:FF:EE:00:00:02") && $0.rssi == -70 } })
        let beacons = log.sightings.filter { $0.beacon != nil }
        #expect(beacons.map(\.rssi) == [-61, -75, -48])
        #expect(beacons.allSatisfy { $0.beacon == Beacons.first && $0.address == BDAddress("C0:FF:EE:00:00:01")! })
        #expect(beacons.first?.advertisingData == [0x1A, 0xFF] + Beacons.first.manufacturerData)
        let other = try #require(log.sightings.last { $0.address == BDAddress("C0:FF:EE:00:00:02")! && $0.rssi == -70 })
        #expect(other.beacon == nil)
        #expect(other.advertisingData == [0x05, 0xFF, 0x59, 0x00, 0x01, 0x02])
        await radio.shutdown()
        await mock.stop()
    }

    @Test("the advertisement we register: bluetoothd's GetAll during RegisterAdvertisement sees a broadcast iBeacon")
    func registeredAdvertisement() async throws {
        let mock = try await BluezMock.start()
        let radio = try await Self.radio(mock)
        try await radio.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 150))
        let log = try await mock.advertisingLog()
        let registration = try #require(Self.registrations(log).first, "log: \(log)")
        #expect(registration["path"] as? String == BlueZRadio.advertisementPath)
        #expect(registration["adapter"] as? String == "/org/bluez/hci0")
        #expect(registration["owner"] as? String == (await radio.busName))
        let properties = try #require(registration["properties"] as? [String: Any])
        #expect(properties["Type"] as? String == "broadcast")
        #expect(Self.beacon(in: registration) == Self.payload(Beacons.first))
        #expect(Self.beacon(in: registration)?.prefix(2) == [0x02, 0x15])
        #expect(properties["MinInterval"] as? Int == 150 && properties["MaxInterval"] as? Int == 150)
        try await radio.stopAdvertising()
        #expect(try await mock.advertisingLog().last?["event"] as? String == "unregister")
        await radio.shutdown()
        await mock.stop()
    }

    @Test("a ride's advertisement: broadcast, TxPower +20 asked, MaxTxPower reported; fast and back re-register at 20 and 100 ms")
    func rideAdvertisementPowerAndPace() async throws {
        let mock = try await BluezMock.start()
        let radio = try await Self.radio(mock)
        try await radio.startAdvertising(.ride(beacon: Beacons.first, intervalMilliseconds: 100))
        // bluetoothd's SupportedCapabilities (the mock's controller: −20 … +9 dBm).
        #expect(await radio.advertisingTransmitPower == 9)
        try await radio.setAdvertisingInterval(milliseconds: BeaconAdvertisement.shortestIntervalMilliseconds)
        try await radio.setAdvertisingInterval(milliseconds: 100)
        let registrations = Self.registrations(try await mock.advertisingLog())
        let properties = registrations.compactMap { $0["properties"] as? [String: Any] }
        #expect(properties.count == 3)
        #expect(properties.map { $0["MinInterval"] as? Int } == [100, 20, 100])
        #expect(properties.map { $0["MaxInterval"] as? Int } == [100, 20, 100])
        #expect(properties.allSatisfy { $0["Type"] as? String == "broadcast" && $0["TxPower"] as? Int == 20 })
        #expect(registrations.allSatisfy { Self.beacon(in: $0) == Self.payload(Beacons.first) })
        // A plain advertisement asks for no power and reports none.
        try await radio.startAdvertising(BeaconAdvertisement(beacon: Beacons.first))
        #expect(await radio.advertisingTransmitPower == nil)
        let plain = try #require(Self.registrations(try await mock.advertisingLog()).last?["properties"] as? [String: Any])
        #expect(plain["TxPower"] == nil)
        await radio.shutdown()
        await mock.stop()
    }

    @Test("rotation is UnregisterAdvertisement then RegisterAdvertisement, and bluetoothd reads the new identity")
    func rotation() async throws {
        let mock = try await BluezMock.start()
        let radio = try await Self.radio(mock)
        try await radio.startAdvertising(BeaconAdvertisement(beacon: Beacons.first))
        try await radio.replaceAdvertisedBeacon(Beacons.rotated)
        let log = try await mock.advertisingLog()
        #expect(log.compactMap { $0["event"] as? String } == ["register", "unregister", "register"])
        #expect(Self.beacon(in: log[0]) == Self.payload(Beacons.first))
        #expect(Self.beacon(in: log[2]) == Self.payload(Beacons.rotated))
        #expect(await radio.registrations == 2)
        await radio.shutdown()
        await mock.stop()
    }

    @Test("bluetoothd releasing our advertisement (Release) makes the radio register it again")
    func releasedByBluetoothd() async throws {
        let mock = try await BluezMock.start()
        let radio = try await Self.radio(mock)
        try await radio.startAdvertising(BeaconAdvertisement(beacon: Beacons.first))
        try await mock.mock("ReleaseAdvertisements")
        #expect(await mock.wait { try await mock.advertisingLog().compactMap { $0["event"] as? String } == ["register", "released", "register"] })
        #expect(Self.beacon(in: try await mock.advertisingLog()[2]) == Self.payload(Beacons.first))
        await radio.shutdown()
        #expect(try await mock.advertisingLog().last?["event"] as? String == "unregister")
        await mock.stop()
    }

    @Test("bluetoothd killed and restarted: radio lost, then restored with the advertisement re-registered and discovery restarted")
    func serviceRestart() async throws {
        let mock = try await BluezMock.start()
        let radio = try await Self.radio(mock)
        let log = EventLog(radio.scan())
        try await radio.startAdvertising(BeaconAdvertisement(beacon: Beacons.first))
        #expect(await mock.wait { try await mock.discoveryFilter().discovering })

        mock.killMock()
        #expect(await log.wait { $0.all.contains { if case .lost(let loss) = $0 { loss.reason.contains("org.bluez left the bus") } else { false } } })
        try await Task.sleep(for: .milliseconds(300))   // a few attempts against no bluetoothd at all
        try await mock.startMock()
        try await Task.sleep(for: .milliseconds(300))   // and some against a bluetoothd without the adapter
        try await mock.addAdapter("hci0")
        #expect(await log.wait { $0.all.contains(.restored) })

        let registrations = Self.registrations(try await mock.advertisingLog())
        #expect(registrations.count == 1, "the restarted service has our advertisement again")
        #expect(registrations.first.flatMap(Self.beacon(in:)) == Self.payload(Beacons.first))
        #expect(try await mock.discoveryFilter().discovering)
        #expect(try await mock.discoveryFilter().filter?["DuplicateData"] as? Bool == true)
        try await mock.report("C0:FF:EE:00:00:03", Beacons.rotated.manufacturerData, rssi: -66)
        #expect(await log.wait { $0.count(of: Beacons.rotated) == 1 })
        #expect(log.all.filter { if case .lost = $0 { true } else { false } }.count == 1)
        #expect(await radio.restorations == 1)
        await radio.shutdown()
        await mock.stop()
    }

    @Test("a new bluetoothd taking the name straight over (NameOwnerChanged old -> new): lost, then restored on the new one")
    func ownerReplaced() async throws {
        let mock = try await BluezMock.start()
        let radio = try await Self.radio(mock)
        let log = EventLog(radio.connectionEvents())
        try await radio.startAdvertising(BeaconAdvertisement(beacon: Beacons.first))
        try await mock.startMock()   // the first mock keeps running but no longer owns org.bluez
        #expect(await log.wait { $0.all.first == .lost(RadioLoss(reason: "bluez:hci0: org.bluez changed owner (bluetoothd restarted)")) })
        try await mock.addAdapter("hci0")
        #expect(await log.wait { $0.all.last == .restored })
        #expect(Self.registrations(try await mock.advertisingLog()).count == 1, "registered with the new owner")
        await radio.shutdown()
        await mock.stop()
    }

    @Test("adapter removed (InterfacesRemoved) and plugged back: lost, restored, advertisement registered again")
    func adapterRemoved() async throws {
        let mock = try await BluezMock.start()
        let radio = try await Self.radio(mock)
        let events = radio.connectionEvents()
        let log = EventLog(events)
        try await radio.startAdvertising(BeaconAdvertisement(beacon: Beacons.first))
        try await mock.removeAdapter("hci0")
        #expect(await log.wait { $0.all == [.lost(RadioLoss(reason: "bluez:hci0: adapter hci0 removed"))] })
        try await mock.addAdapter("hci0")
        #expect(await log.wait { $0.all.last == .restored })
        #expect(Self.registrations(try await mock.advertisingLog()).count == 2)
        await radio.shutdown()
        await mock.stop()
    }

    @Test("a missing adapter fails the connect with one message naming it")
    func missingAdapter() async throws {
        let mock = try await BluezMock.start()
        await #expect {
            _ = try await Self.radio(mock, adapter: "hci7")
        } throws: { error in
            "\(error)".hasPrefix("no adapter /org/bluez/hci7 on org.bluez")
        }
        await mock.stop()
    }

    /// Threads serving this mock's bus, from /proc (Foundation's Thread.name is per-thread only).
    /// Other suites run their own buses in parallel; their threads have other names.
    static func busThreads(_ mock: BluezMock) -> Int {
        let name = DBusConnection.threadName(forAddress: mock.address)
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { BumbleControllers.procFile("/proc/self/task/\($0)/comm")?.hasPrefix(name) == true }.count
    }

    @Test("the bus itself dies and comes back: lost, restored; shutdown leaves no bus thread behind")
    func busRestartAndNoLeaks() async throws {
        let mock = try await BluezMock.start()
        let threadsBefore = Self.busThreads(mock)   // the harness's own connection to this bus
        let radio = try await Self.radio(mock)
        let log = EventLog(radio.scan())
        try await radio.startAdvertising(BeaconAdvertisement(beacon: Beacons.first))
        #expect(Self.busThreads(mock) == threadsBefore + 1)
        await mock.killDaemon()
        #expect(await log.wait { $0.all.contains { if case .lost(let loss) = $0 { loss.reason.contains("system bus connection closed") } else { false } } })
        try await mock.startDaemon()
        try await mock.startMock()
        try await mock.addAdapter("hci0")
        #expect(await log.wait { $0.all.contains(.restored) })
        #expect(Self.registrations(try await mock.advertisingLog()).count == 1)
        #expect(Self.busThreads(mock) == threadsBefore + 1, "one bus thread: the dead connection's thread ended")
        await radio.shutdown()
        #expect(Self.busThreads(mock) == threadsBefore)
        await mock.stop()
    }
}
