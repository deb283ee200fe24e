/// A 48-bit Bluetooth device address.
///
/// HCI carries addresses least-significant byte first; people write them most-significant
/// first (`AA:BB:CC:DD:EE:FF`). Keeping the address as one integer makes it cheap to copy,
/// hash and compare on the report path, and leaves byte order to the two conversions below.
public struct BDAddress: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The address as a number: the first byte printed is bits 40...47.
    public let rawValue: UInt64

    /// `rawValue` keeps only its low 48 bits.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// 00:00:00:00:00:00, the spec's "no address".
    public static let zero = BDAddress(rawValue: 0)

    /// Reads six bytes in HCI wire order (least significant first), starting at `start`.
    /// The caller guarantees `start + 6 <= bytes.endIndex`.
    init(wire bytes: ArraySlice<UInt8>, at start: Int) {
        var value: UInt64 = 0
        for i in (0..<6).reversed() { value = value << 8 | UInt64(bytes[start + i]) }
        self.init(rawValue: value)
    }

    /// Six bytes in HCI wire order; nil unless exactly six are given.
    public init?(wireBytes: some Collection<UInt8>) {
        guard wireBytes.count == 6 else { return nil }
        self.init(wire: ArraySlice(wireBytes), at: 0)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (case-insensitive, `-` also accepted as separator).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let groups = parts.count == 6 ? parts : text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.count == 6 else { return nil }
        var value: UInt64 = 0
        for group in groups {
            guard group.count == 2, let byte = UInt8(group, radix: 16) else { return nil }
            value = value << 8 | UInt64(byte)
        }
        self.init(rawValue: value)
    }

    /// The six bytes in HCI wire order (least significant first).
    public var wireBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64($0))) }
    }

    /// Appends the wire bytes without an intermediate array.
    func append(to out: inout [UInt8]) {
        for i in 0..<6 { out.append(UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64(i)))) }
    }

    /// `AA:BB:CC:DD:EE:FF`, most significant byte first, upper-case hex.
    public var description: String {
        let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(17)
        for i in (0..<6).reversed() {
            let byte = Int(truncatingIfNeeded: rawValue >> (8 * UInt64(i))) & 0xFF
            out.append(digits[byte >> 4])
            out.append(digits[byte & 0x0F])
            if i > 0 { out.append(UInt8(ascii: ":")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Numeric order, which is also the order of the printed form.
    public static func < (a: BDAddress, b: BDAddress) -> Bool { a.rawValue < b.rawValue }
}

/// The kind of address an HCI event or command refers to (Core Spec Vol 4 Part E §7.7.65).
/// Kept as the raw byte so values from newer controllers survive a decode/encode round trip.
public struct AddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type byte as on the wire.
    public var rawValue: UInt8
    /// Any type byte, known or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A public (IEEE-assigned) device address.
    public static let publicDevice = AddressType(rawValue: 0x00)
    /// A random device address (phones rotate these).
    public static let randomDevice = AddressType(rawValue: 0x01)
    /// A resolvable private address the controller resolved to a public identity.
    public static let publicIdentity = AddressType(rawValue: 0x02)
    /// A resolvable private address the controller resolved to a random static identity.
    public static let randomIdentity = AddressType(rawValue: 0x03)
    /// Extended reports only: the advertiser omitted its address.
    public static let anonymous = AddressType(rawValue: 0xFF)

    /// "public", "random", … or "address-type-N" for an unknown byte.
    public var description: String {
        switch self {
        case .publicDevice: "public"
        case .randomDevice: "random"
        case .publicIdentity: "public-identity"
        case .randomIdentity: "random-identity"
        case .anonymous: "anonymous"
        default: "address-type-\(rawValue)"
        }
    }
}
