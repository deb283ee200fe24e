import BeaconCore
@testable import BlueZ
@testable import HCITransports
@testable import RadioCore
import Testing

/// The pure halves of the bluez radio: what we tell bluetoothd and how its Device1 properties
/// become sightings. (Against a live bus: BlueZRadioTests.)
@Suite struct BlueZObjectsTests {
    let devices = BlueZDevices(adapterPath: "/org/bluez/hci0")

    func update(_ path: String, _ properties: [String: DBusValue]) -> RadioSighting? {
        devices.update(path: path, properties, receivedAt: .now, unixMicroseconds: 1)
    }

    static func manufacturerData(_ entries: [UInt16: [UInt8]]) -> DBusValue {
        .dictionary(keySignature: "q", valueSignature: "v",
                    entries.map { DBusDictionaryEntry(key: .uint16($0.key), value: .variant(.bytes($0.value))) })
    }

    @Test func onlyDevicesOfOurAdapterCount() {
        #expect(devices.isDevice("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"))
        #expect(!devices.isDevice("/org/bluez/hci1/dev_AA_BB_CC_DD_EE_FF"))
        #expect(!devices.isDevice("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF/service0001"))
        #expect(!devices.isDevice("/org/bluez/hci0"))
        #expect(BlueZDevices.address(fromPath: "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_0F") == BDAddress("AA:BB:CC:DD:EE:0F"))
        #expect(BlueZDevices.address(fromPath: "/org/bluez/hci0/dev_nonsense") == nil)
    }

    @Test func anRSSIChangeReusesTheRememberedDataAndAddress() throws {
        let path = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
        _ = devices.update(path: path, ["AddressType": .string("random"),
                                        "ManufacturerData": Self.manufacturerData([0x004C: Array(Beacons.first.manufacturerData.dropFirst(2))])],
                           remember: true, receivedAt: .now, unixMicroseconds: 0)
        let sighting = try #require(update(path, ["RSSI": .variant(.int16(-67))]))
        #expect(sighting.rssi == -67)
        #expect(sighting.beacon == Beacons.first)
        #expect(sighting.address == BDAddress("C0:FF:EE:00:00:01"))
        #expect(sighting.addressType == .randomDevice)
        #expect(update(path, ["Connected": .boolean(false)]) == nil, "not an advertisement")
        #expect(update("/org/bluez/hci0/dev_C0_FF_EE_00_00_02", ["RSSI": .int16(-300 / 2)])?.rssi == -128, "clamped, never trapped")
    }

    @Test func manufacturerDataBecomesADStructuresByCompanyID() {
        let data = BlueZDevices.advertisingData([0x0059: [1, 2], 0x004C: [0x02, 0x15], 0x0001: Array(repeating: 0, count: 300)])
        #expect(data == [0x05, 0xFF, 0x4C, 0x00, 0x02, 0x15, 0x05, 0xFF, 0x59, 0x00, 1, 2], "ordered; an impossible length left out")
    }

    @Test func theAdvertisementAndTheFilterWeAskFor() {
        let properties = BlueZRequest.advertisementProperties(BeaconAdvertisement(beacon: Beacons.rotated, intervalMilliseconds: 200))
        #expect(properties.map(\.0) == ["Type", "ManufacturerData", "MinInterval", "MaxInterval"])
        #expect(properties[0].1 == .string("broadcast"))
        #expect(properties[1].1.manufacturerData == [0x004C: Array(Beacons.rotated.manufacturerData.dropFirst(2))])
        #expect(properties[2].1 == .uint32(200))
        let connectable = BlueZRequest.advertisementProperties(BeaconAdvertisement(beacon: Beacons.rotated, type: .connectable))
        #expect(connectable[0].1 == .string("peripheral"))
        #expect(BlueZRequest.discoveryFilter(rssiFloor: -90).map(\.0) == ["Transport", "DuplicateData", "RSSI"])
        #expect(DBusValue.properties(BlueZRequest.discoveryFilter(rssiFloor: -90)).signature == "a{sv}")
    }
}
