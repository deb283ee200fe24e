// Parameter value types shared by the LE advertising and scanning commands
// (Core Spec Vol 4 Part E §7.8). Enums where the spec lists every allowed value, so an
// invalid value cannot be built; raw structs where controllers may report values we don't know.

/// Which address the controller uses for its own packets.
public enum OwnAddressType: UInt8, Sendable, CaseIterable {
    /// The controller's public address.
    case publicDevice = 0x00
    /// The controller's random address (set beforehand).
    case randomDevice = 0x01
    /// Resolvable private address if the resolving list has one, else the public address.
    case resolvableOrPublic = 0x02
    /// Resolvable private address if the resolving list has one, else the random address.
    case resolvableOrRandom = 0x03
}

/// The address type of a peer named in a command.
public enum PeerAddressType: UInt8, Sendable, CaseIterable {
    /// A public device address.
    case publicDevice = 0x00
    /// A random device address.
    case randomDevice = 0x01
}

/// Legacy advertising PDU type for LE Set Advertising Parameters.
public enum LegacyAdvertisingType: UInt8, Sendable, CaseIterable {
    /// Connectable and scannable undirected (ADV_IND).
    case advInd = 0x00
    /// Connectable directed, high duty cycle (ADV_DIRECT_IND).
    case advDirectIndHighDuty = 0x01
    /// Scannable undirected (ADV_SCAN_IND).
    case advScanInd = 0x02
    /// Non-connectable, non-scannable undirected (ADV_NONCONN_IND): what a beacon sends.
    case advNonconnInd = 0x03
    /// Connectable directed, low duty cycle (ADV_DIRECT_IND).
    case advDirectIndLowDuty = 0x04
}

/// The primary advertising channels to use; never empty.
public struct AdvertisingChannelMap: OptionSet, Hashable, Sendable {
    /// The channel bits as sent.
    public var rawValue: UInt8
    /// Any combination of channel bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Channel 37 (2402 MHz).
    public static let channel37 = AdvertisingChannelMap(rawValue: 1 << 0)
    /// Channel 38 (2426 MHz).
    public static let channel38 = AdvertisingChannelMap(rawValue: 1 << 1)
    /// Channel 39 (2480 MHz).
    public static let channel39 = AdvertisingChannelMap(rawValue: 1 << 2)
    /// All three: what a beacon uses.
    public static let all: AdvertisingChannelMap = [.channel37, .channel38, .channel39]
}

/// Which scan and connection requests an advertiser answers.
public enum AdvertisingFilterPolicy: UInt8, Sendable, CaseIterable {
    /// Answer every scan and connection request.
    case acceptAll = 0x00
    /// Answer scan requests only from the filter accept list.
    case filterScanRequests = 0x01
    /// Accept connections only from the filter accept list.
    case filterConnectionRequests = 0x02
    /// Both requests only from the filter accept list.
    case filterScanAndConnectionRequests = 0x03
}

/// Passive scanning only listens; active scanning sends scan requests for scan responses.
public enum ScanType: UInt8, Sendable, CaseIterable {
    /// Listen only (an iBeacon scanner needs nothing more).
    case passive = 0x00
    /// Send scan requests to get scan responses.
    case active = 0x01
}

/// Which advertising packets a scanner reports.
public enum ScanningFilterPolicy: UInt8, Sendable, CaseIterable {
    /// Every advertisement (except directed ones not for us).
    case basicUnfiltered = 0x00
    /// Only advertisers on the filter accept list.
    case basicFiltered = 0x01
    /// Every advertisement, including directed ones to resolvable addresses.
    case extendedUnfiltered = 0x02
    /// The filter accept list, including directed ones to resolvable addresses.
    case extendedFiltered = 0x03
}

/// An LE physical layer as numbered in commands and reports (0 = none, in reports' secondary PHY).
public struct PHY: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The PHY's number as in commands and reports.
    public var rawValue: UInt8
    /// Any PHY number, known or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// No PHY (a report's secondary PHY for a legacy PDU).
    public static let none = PHY(rawValue: 0x00)
    /// LE 1M: every controller's, and every legacy advertisement's.
    public static let le1M = PHY(rawValue: 0x01)
    /// LE 2M (secondary channels only).
    public static let le2M = PHY(rawValue: 0x02)
    /// LE Coded: long range.
    public static let leCoded = PHY(rawValue: 0x03)

    /// "LE 1M", "LE Coded", or "PHY n" for an unknown number.
    public var description: String {
        switch self {
        case .none: "none"
        case .le1M: "LE 1M"
        case .le2M: "LE 2M"
        case .leCoded: "LE Coded"
        default: "PHY \(rawValue)"
        }
    }
}

/// Advertising_Event_Properties of LE Set Extended Advertising Parameters.
/// (Reports use a different bit 3; see `AdvertisingReport.Properties`.)
public struct AdvertisingEventProperties: OptionSet, Hashable, Sendable {
    /// The property bits as sent.
    public var rawValue: UInt16
    /// Any combination of property bits.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Peers may connect.
    public static let connectable = AdvertisingEventProperties(rawValue: 1 << 0)
    /// Peers may send scan requests.
    public static let scannable = AdvertisingEventProperties(rawValue: 1 << 1)
    /// Addressed to one peer.
    public static let directed = AdvertisingEventProperties(rawValue: 1 << 2)
    /// Directed at a high duty cycle (legacy ADV_DIRECT_IND).
    public static let highDutyCycleDirected = AdvertisingEventProperties(rawValue: 1 << 3)
    /// Legacy PDUs (what iBeacon scanners on older phones see).
    public static let legacy = AdvertisingEventProperties(rawValue: 1 << 4)
    /// Omit the advertiser's address from all PDUs.
    public static let anonymous = AdvertisingEventProperties(rawValue: 1 << 5)
    /// The extended header carries the TX power.
    public static let includeTxPower = AdvertisingEventProperties(rawValue: 1 << 6)

    /// Bits 7-15 are reserved for future use.
    static let defined: AdvertisingEventProperties = AdvertisingEventProperties(rawValue: 0x7F)

    /// The five combinations a legacy set may use (Core Spec Vol 4 Part E §7.8.53, Table 7.2).
    static let legacyCombinations: Set<UInt16> = [
        0b0010011, // ADV_IND
        0b0010101, // ADV_DIRECT_IND, low duty cycle
        0b0011101, // ADV_DIRECT_IND, high duty cycle
        0b0010010, // ADV_SCAN_IND
        0b0010000, // ADV_NONCONN_IND
    ]
}

/// How LE Set Extended Advertising Data's data relates to what the controller already holds.
public enum ExtendedAdvertisingDataOperation: UInt8, Sendable, CaseIterable {
    /// A middle piece of data already begun.
    case intermediateFragment = 0x00
    /// The first piece of new data.
    case firstFragment = 0x01
    /// The last piece.
    case lastFragment = 0x02
    /// All the data in one command.
    case complete = 0x03
    /// Keep the data, just change the advertising DID (data must be empty).
    case unchangedData = 0x04
}

/// Whether the controller may fragment host data across several PDUs.
public enum FragmentPreference: UInt8, Sendable, CaseIterable {
    /// The controller may split the data over several PDUs.
    case mayFragment = 0x00
    /// Keep the data in as few PDUs as it can.
    case shouldNotFragment = 0x01
}

/// Filter_Duplicates of LE Set Extended Scan Enable.
public enum ExtendedScanDuplicateFilter: UInt8, Sendable, CaseIterable {
    /// Report every advertisement, repeats included (what RSSI tracking needs).
    case disabled = 0x00
    /// Report each advertiser once per scan.
    case enabled = 0x01
    /// Enabled, and the duplicate list is cleared at the start of each scan period.
    case enabledResetEachPeriod = 0x02
}
