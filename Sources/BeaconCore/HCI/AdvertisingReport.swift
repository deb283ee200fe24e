/// One advertisement as a controller reports it, from either the legacy LE Advertising Report
/// (subevent 0x02) or the LE Extended Advertising Report (subevent 0x0D).
///
/// Fields the legacy report lacks hold what a legacy PDU implies: primary PHY LE 1M,
/// no secondary PHY, no SID, no TX power, no periodic advertising, zero direct address.
/// `data` slices the decoded input, so keeping a report keeps that buffer alive.
public struct AdvertisingReport: Equatable, Sendable {
    /// Which report event the advertisement came in.
    public enum Format: Equatable, Sendable {
        /// LE Advertising Report (subevent 0x02).
        case legacy
        /// LE Extended Advertising Report (subevent 0x0D).
        case extended
    }

    /// Whether the advertisement was complete, for extended reports (bits 5-6 of the event type).
    public enum DataStatus: UInt8, Equatable, Sendable {
        /// The advertisement's data is all here.
        case complete = 0
        /// More data follows in the next report with the same address and SID.
        case incompleteMoreToCome = 1
        /// The controller gave up on the rest; what arrived is all there will be.
        case incompleteTruncated = 2
        /// Reserved by the spec; treated like truncated data.
        case reserved = 3
    }

    /// Report event-type bits shared by both formats (for legacy reports, the mapping of the
    /// PDU type given in Core Spec Vol 4 Part E §7.7.65.13).
    public struct Properties: OptionSet, Hashable, Sendable {
        /// The property bits.
        public var rawValue: UInt16
        /// Any combination of property bits.
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// The advertiser accepts connections.
        public static let connectable = Properties(rawValue: 1 << 0)
        /// The advertiser answers scan requests.
        public static let scannable = Properties(rawValue: 1 << 1)
        /// Addressed to one peer.
        public static let directed = Properties(rawValue: 1 << 2)
        /// A scan response, not an advertisement.
        public static let scanResponse = Properties(rawValue: 1 << 3)
        /// A legacy PDU.
        public static let legacy = Properties(rawValue: 1 << 4)
    }

    /// Legacy or extended report.
    public var format: Format
    /// The event type exactly as received: the PDU type (0...4) for legacy reports, the
    /// 16-bit property and data-status bits for extended ones (reserved bits kept).
    public var eventType: UInt16
    /// The advertiser's address type.
    public var addressType: AddressType
    /// The advertiser's address.
    public var address: BDAddress
    /// The PHY of the primary advertising channel (LE 1M for legacy reports).
    public var primaryPHY: PHY
    /// The PHY of the secondary channel; `.none` when unused.
    public var secondaryPHY: PHY
    /// Advertising set ID, nil when the PDU carried none (0xFF on the wire).
    public var advertisingSID: UInt8?
    /// Transmit power in dBm, nil when not available (127 on the wire).
    public var txPower: Int8?
    /// Received signal strength in dBm, nil when not available (127 on the wire).
    public var rssi: Int8?
    /// In 1.25 ms units; 0 when there is no periodic advertising.
    public var periodicAdvertisingInterval: UInt16
    /// For a directed advertisement, the type of the address it was directed at.
    public var directAddressType: AddressType
    /// For a directed advertisement, the address it was directed at; zero otherwise.
    public var directAddress: BDAddress
    /// The advertising data (AD structures), a slice of the decoded input.
    public var data: ArraySlice<UInt8>

    /// An extended report; every field as on the wire (127/0xFF already mapped to nil).
    public init(eventType: UInt16, addressType: AddressType, address: BDAddress,
                primaryPHY: PHY = .le1M, secondaryPHY: PHY = .none, advertisingSID: UInt8? = nil,
                txPower: Int8? = nil, rssi: Int8?, periodicAdvertisingInterval: UInt16 = 0,
                directAddressType: AddressType = .publicDevice, directAddress: BDAddress = .zero,
                data: ArraySlice<UInt8>) {
        self.format = .extended
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.advertisingSID = advertisingSID
        self.txPower = txPower
        self.rssi = rssi
        self.periodicAdvertisingInterval = periodicAdvertisingInterval
        self.directAddressType = directAddressType
        self.directAddress = directAddress
        self.data = data
    }

    /// A legacy report: `eventType` is the PDU type byte (0 ADV_IND ... 4 SCAN_RSP).
    public static func legacy(eventType: UInt8, addressType: AddressType, address: BDAddress,
                              rssi: Int8?, data: ArraySlice<UInt8>) -> AdvertisingReport {
        var report = AdvertisingReport(eventType: UInt16(eventType), addressType: addressType, address: address,
                                       rssi: rssi, data: data)
        report.format = .legacy
        return report
    }

    /// Whether this came in a legacy report.
    public var isLegacy: Bool { format == .legacy }

    /// Connectable / scannable / directed / scan response / legacy-PDU bits. Legacy PDU
    /// types map as the spec's table does; SCAN_RSP maps to a scan response to ADV_SCAN_IND.
    public var properties: Properties {
        switch format {
        case .extended:
            return Properties(rawValue: eventType & 0x1F)
        case .legacy:
            switch eventType {
            case 0x00: return [.legacy, .connectable, .scannable]
            case 0x01: return [.legacy, .connectable, .directed]
            case 0x02: return [.legacy, .scannable]
            case 0x03: return [.legacy]
            case 0x04: return [.legacy, .scannable, .scanResponse]
            default: return [.legacy]
            }
        }
    }

    /// Always `.complete` for legacy reports.
    public var dataStatus: DataStatus {
        switch format {
        case .legacy: .complete
        case .extended: DataStatus(rawValue: UInt8((eventType >> 5) & 0x3)) ?? .reserved
        }
    }
}
