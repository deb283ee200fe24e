import BeaconCore
import RadioCore
import Synchronization

/// Names in BlueZ's D-Bus API (doc/org.bluez.Adapter.rst, org.bluez.Device.rst,
/// org.bluez.LEAdvertisingManager.rst, org.bluez.LEAdvertisement.rst).
enum BlueZName {
    static let service = "org.bluez"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    static let advertisement = "org.bluez.LEAdvertisement1"
    static let properties = "org.freedesktop.DBus.Properties"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let bus = "org.freedesktop.DBus"
}

/// What we ask bluetoothd for: the LEAdvertisement1 object's properties and the discovery filter.
public enum BlueZRequest {
    /// The LEAdvertisement1 properties of a beacon. bluetoothd reads them once, at registration.
    /// ManufacturerData keys are company ids; the value is what follows the id on air.
    public static func advertisementProperties(_ advertisement: BeaconAdvertisement) -> [(String, DBusValue)] {
        let payload = Array(advertisement.beacon.manufacturerData.dropFirst(2))
        let interval = DBusValue.uint32(UInt32(max(advertisement.intervalMilliseconds, BeaconAdvertisement.shortestIntervalMilliseconds)))
        var properties: [(String, DBusValue)] = [
            // "broadcast" is non-connectable; "peripheral" connectable (BlueZ has no scannable-only type).
            ("Type", .string(advertisement.type == .connectable ? "peripheral" : "broadcast")),
            ("ManufacturerData", .dictionary(keySignature: "q", valueSignature: "v", [
                DBusDictionaryEntry(key: .uint16(IBeacon.appleCompanyID), value: .variant(.bytes(payload))),
            ])),
            // Experimental in BlueZ 5.x; older daemons ignore properties they do not parse.
            ("MinInterval", interval),
            ("MaxInterval", interval),
        ]
        if advertisement.transmitPower == .highest {
            // Experimental too, and used only when the adapter can set its power (CanSetTxPower):
            // the kernel then asks the controller for at most this, which it meets with its highest.
            properties.append(("TxPower", .int16(highestTransmitPower)))
        }
        return properties
    }

    /// The highest power an advertisement may ask for (LEAdvertisement1 `TxPower`: −127 … +20 dBm).
    public static let highestTransmitPower: Int16 = 20

    /// The highest advertising power bluetoothd says the controller has: LEAdvertisingManager1's
    /// SupportedCapabilities (experimental), `MaxTxPower`; nil when it does not say.
    static func maximumTransmitPower(capabilities: DBusValue?) -> Int8? {
        capabilities?.stringKeyedDictionary?["MaxTxPower"]?.int16Value.map { Int8(clamping: $0) }
    }

    /// LE only, every advertisement (not just changed data), and an RSSI floor: with any filter
    /// set bluetoothd drops its default rule of reporting RSSI only when it moved by 8 dB or more.
    public static func discoveryFilter(rssiFloor: Int16) -> [(String, DBusValue)] {
        [("Transport", .string("le")), ("DuplicateData", .boolean(true)), ("RSSI", .int16(rssiFloor))]
    }

    /// Answers bluetoothd's calls on our LEAdvertisement1 object; nil for calls that are not ours.
    static func answer(_ call: DBusMessage, path: String, advertisement: BeaconAdvertisement?,
                       onRelease: () -> Void) -> DBusReply? {
        guard call.path == path else { return nil }
        switch (call.interface, call.member) {
        case (BlueZName.properties?, "GetAll"?):
            guard call.body.first?.stringValue == BlueZName.advertisement, let advertisement else {
                return .values([.properties([])])
            }
            return .values([.properties(advertisementProperties(advertisement))])
        case (BlueZName.properties?, "Get"?):
            let name = call.body.dropFirst().first?.stringValue
            guard call.body.first?.stringValue == BlueZName.advertisement, let advertisement,
                  let value = advertisementProperties(advertisement).first(where: { $0.0 == name })?.1 else {
                return .error(DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "no such property"))
            }
            return .values([.variant(value)])
        case (BlueZName.advertisement?, "Release"?):
            onRelease()
            return .values([])
        default:
            return nil
        }
    }
}

/// Device1 objects under one adapter, as last reported. Signals carry only what changed, so a
/// sighting combines the change with what is remembered (address, the other of RSSI/data).
final class BlueZDevices: Sendable {
    struct Device {
        var address: BDAddress
        var addressType: AddressType = .publicDevice
        var rssi: Int16?
        var manufacturerData: [UInt16: [UInt8]] = [:]
    }

    let adapterPath: String
    private let devices = Mutex<[String: Device]>([:])

    init(adapterPath: String) { self.adapterPath = adapterPath }

    /// Whether `path` is a device of our adapter (`/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`).
    func isDevice(_ path: String) -> Bool {
        path.hasPrefix(adapterPath + "/dev_") && !path.dropFirst(adapterPath.count + 1).contains("/")
    }

    /// Records Device1 properties; returns a sighting when they report an advertisement
    /// (RSSI or ManufacturerData), nil for other changes (Connected, Name, ...).
    func update(path: String, _ properties: [String: DBusValue], remember: Bool = false,
                receivedAt: ContinuousClock.Instant, unixMicroseconds: Int64) -> RadioSighting? {
        guard isDevice(path) else { return nil }
        let device = devices.withLock { devices -> Device? in
            var device = devices[path] ?? Device(address: properties["Address"]?.stringValue.flatMap(BDAddress.init)
                                                 ?? Self.address(fromPath: path) ?? .zero)
            if let text = properties["Address"]?.stringValue, let address = BDAddress(text) { device.address = address }
            if let type = properties["AddressType"]?.stringValue { device.addressType = type == "random" ? .randomDevice : .publicDevice }
            if let rssi = properties["RSSI"]?.int16Value { device.rssi = rssi }
            if let data = properties["ManufacturerData"]?.manufacturerData { device.manufacturerData = data }
            devices[path] = device
            return device
        }
        guard let device, !remember, properties["RSSI"] != nil || properties["ManufacturerData"] != nil else { return nil }
        let data = Self.advertisingData(device.manufacturerData)
        return RadioSighting(address: device.address, addressType: device.addressType,
                             rssi: device.rssi.map { Int8(clamping: $0) }, receivedAt: receivedAt,
                             unixMicroseconds: unixMicroseconds, advertisingData: data,
                             beacon: IBeacon(advertisingData: data))
    }

    func remove(path: String) { _ = devices.withLock { $0.removeValue(forKey: path) } }

    func removeAll() { devices.withLock { $0.removeAll() } }

    /// BlueZ names device objects after the address: dev_AA_BB_CC_DD_EE_FF.
    static func address(fromPath path: String) -> BDAddress? {
        guard let last = path.split(separator: "/").last, last.hasPrefix("dev_") else { return nil }
        return BDAddress(String(last.dropFirst(4).map { $0 == "_" ? ":" : $0 }))
    }

    /// The manufacturer-specific AD structures BlueZ's dictionary stands for, by company id.
    static func advertisingData(_ manufacturerData: [UInt16: [UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for (company, value) in manufacturerData.sorted(by: { $0.key < $1.key }) where value.count <= 251 {
            out += [UInt8(value.count + 3), 0xFF, UInt8(company & 0xFF), UInt8(company >> 8)] + value
        }
        return out
    }
}
