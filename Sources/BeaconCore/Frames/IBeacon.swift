import Foundation

/// An Apple iBeacon frame: manufacturer data `4C 00 | 02 15 | UUID(16) | major(BE) | minor(BE) | power(int8)`.
public struct IBeacon: Equatable, Hashable, Sendable {
    /// The proximity UUID.
    public var uuid: UUID
    /// First 16-bit number (big-endian on the air).
    public var major: UInt16
    /// Second 16-bit number (big-endian on the air).
    public var minor: UInt16
    /// Calibrated RSSI at 1 m, in dBm.
    public var measuredPower: Int8

    /// A frame from its fields:
    ///
    /// ```swift
    /// let beacon = IBeacon(uuid: UUID(), major: 1, minor: 2, measuredPower: -59)
    /// IBeacon(advertisingData: beacon.advertisingData) == beacon   // true
    /// ```
    public init(uuid: UUID, major: UInt16, minor: UInt16, measuredPower: Int8) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }

    /// Major and minor first: they are cheap to compare and usually tell two beacons apart,
    /// which matters when every received packet is matched against the identities listened for.
    @inlinable
    public static func == (a: IBeacon, b: IBeacon) -> Bool {
        a.major == b.major && a.minor == b.minor && a.measuredPower == b.measuredPower && a.uuid == b.uuid
    }

    /// Apple's Bluetooth company identifier, the first two bytes of the manufacturer data.
    public static let appleCompanyID: UInt16 = 0x004C
    static let payloadType: UInt8 = 0x02
    static let payloadLength: UInt8 = 0x15

    /// Decodes an iBeacon from manufacturer-specific data (company id first, little-endian).
    /// Any other Apple payload (AirDrop, Find My, ...) or length is not an iBeacon.
    @inlinable
    public init?(manufacturerData d: ArraySlice<UInt8>) {
        guard d.count == 25 else { return nil }
        let s = d.startIndex
        guard d[s] == 0x4C, d[s + 1] == 0x00, d[s + 2] == 0x02, d[s + 3] == 0x15 else { return nil }
        let u = s + 4
        uuid = UUID(uuid: (d[u], d[u + 1], d[u + 2], d[u + 3], d[u + 4], d[u + 5], d[u + 6], d[u + 7],
                           d[u + 8], d[u + 9], d[u + 10], d[u + 11], d[u + 12], d[u + 13], d[u + 14], d[u + 15]))
        major = UInt16(d[s + 20]) << 8 | UInt16(d[s + 21])
        minor = UInt16(d[s + 22]) << 8 | UInt16(d[s + 23])
        measuredPower = Int8(bitPattern: d[s + 24])
    }

    /// Finds an iBeacon anywhere among the AD structures of an advertisement. Structures after
    /// the iBeacon are not examined; malformed data before it yields nil, not a partial decode.
    /// (The walk is `ADStructure.forEach` written out: this runs once per received packet.)
    @inlinable
    public init?(advertisingData data: ArraySlice<UInt8>) {
        var i = data.startIndex
        while i < data.endIndex {
            let length = Int(data[i])
            guard length != 0 else { return nil }
            let end = i + 1 + length
            guard end <= data.endIndex else { return nil }
            if length == 26, data[i + 1] == ADStructure.manufacturerSpecificData,
               let beacon = IBeacon(manufacturerData: data[(i + 2)..<end]) {
                self = beacon
                return
            }
            i = end
        }
        return nil
    }

    /// Finds the iBeacon among whole advertising data's AD structures; nil when there is none.
    public init?(advertisingData data: [UInt8]) {
        self.init(advertisingData: data[...])
    }

    /// The manufacturer-specific data value (company id little-endian first).
    public var manufacturerData: [UInt8] {
        var out: [UInt8] = [0x4C, 0x00, Self.payloadType, Self.payloadLength]
        withUnsafeBytes(of: uuid.uuid) { out.append(contentsOf: $0) }
        out += [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF),
                UInt8(bitPattern: measuredPower)]
        return out
    }

    /// A complete 30-byte advertisement: flags (LE General Discoverable, BR/EDR not supported)
    /// followed by the iBeacon manufacturer data, as iOS emits it.
    public var advertisingData: [UInt8] {
        ADStructure.encode([
            ADStructure(type: ADStructure.flags, value: [0x06]),
            ADStructure(type: ADStructure.manufacturerSpecificData, value: manufacturerData[...]),
        ])
    }
}
