// Legacy (Bluetooth 4.x) advertising and scanning commands, Core Spec Vol 4 Part E §7.8.5-7.8.11.

/// Parameters of LE Set Advertising Parameters. Intervals are in 0.625 ms units.
public struct LEAdvertisingParameters: Equatable, Sendable {
    /// 0x0020...0x4000 (20 ms ... 10.24 s).
    public var intervalMin: UInt16
    /// 0x0020...0x4000, at least `intervalMin`.
    public var intervalMax: UInt16
    /// The PDU advertised (ADV_NONCONN_IND for a beacon).
    public var type: LegacyAdvertisingType
    /// Which of the controller's addresses advertises.
    public var ownAddressType: OwnAddressType
    /// Only used by directed advertising and by privacy.
    public var peerAddressType: PeerAddressType
    /// The peer, for directed advertising only.
    public var peerAddress: BDAddress
    /// The advertising channels used.
    public var channelMap: AdvertisingChannelMap
    /// Which scan and connection requests are answered.
    public var filterPolicy: AdvertisingFilterPolicy

    /// Defaults are the controller's reset values except the type: a beacon is ADV_NONCONN_IND.
    public init(intervalMin: UInt16 = 0x0800, intervalMax: UInt16 = 0x0800, type: LegacyAdvertisingType = .advNonconnInd,
                ownAddressType: OwnAddressType = .publicDevice, peerAddressType: PeerAddressType = .publicDevice,
                peerAddress: BDAddress = .zero, channelMap: AdvertisingChannelMap = .all,
                filterPolicy: AdvertisingFilterPolicy = .acceptAll) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.type = type
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }
}

/// Parameters of LE Set Scan Parameters. Interval and window are in 0.625 ms units.
public struct LEScanParameters: Equatable, Sendable {
    /// Passive (listen only) or active (scan requests).
    public var type: ScanType
    /// 0x0004...0x4000 (2.5 ms ... 10.24 s).
    public var interval: UInt16
    /// 0x0004...0x4000, at most `interval`.
    public var window: UInt16
    /// The address scan requests come from.
    public var ownAddressType: OwnAddressType
    /// Which advertising packets are reported.
    public var filterPolicy: ScanningFilterPolicy

    /// Defaults: passive, window equal to interval (continuous listening), 10 ms.
    public init(type: ScanType = .passive, interval: UInt16 = 0x0010, window: UInt16 = 0x0010,
                ownAddressType: OwnAddressType = .publicDevice, filterPolicy: ScanningFilterPolicy = .basicUnfiltered) {
        self.type = type
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
    }
}

extension HCICommand {
    /// Legacy advertising data and scan response data hold at most 31 bytes.
    public static let legacyAdvertisingDataCapacity = 31

    /// HCI_LE_Set_Advertising_Parameters (0x2006), 15 parameter bytes.
    public static func leSetAdvertisingParameters(_ p: LEAdvertisingParameters) throws(EncodeError) -> HCICommand {
        try EncodeError.check("advertising interval min", p.intervalMin, in: 0x0020...0x4000)
        try EncodeError.check("advertising interval max", p.intervalMax, in: 0x0020...0x4000)
        guard p.intervalMin <= p.intervalMax else {
            throw .invalidCombination("advertising interval min \(p.intervalMin) exceeds max \(p.intervalMax)")
        }
        try checkChannelMap(p.channelMap)
        var out: [UInt8] = []
        out.reserveCapacity(15)
        out.appendLE16(p.intervalMin)
        out.appendLE16(p.intervalMax)
        out.append(p.type.rawValue)
        out.append(p.ownAddressType.rawValue)
        out.append(p.peerAddressType.rawValue)
        p.peerAddress.append(to: &out)
        out.append(p.channelMap.rawValue)
        out.append(p.filterPolicy.rawValue)
        return HCICommand(unchecked: .leSetAdvertisingParameters, parameters: out[...])
    }

    /// HCI_LE_Set_Advertising_Data (0x2008): length byte, then the data zero-padded to 31 bytes.
    public static func leSetAdvertisingData(_ data: some Collection<UInt8>) throws(EncodeError) -> HCICommand {
        HCICommand(unchecked: .leSetAdvertisingData, parameters: try legacyDataParameters(data, field: "advertising data"))
    }

    /// HCI_LE_Set_Scan_Response_Data (0x2009): same layout as the advertising data.
    public static func leSetScanResponseData(_ data: some Collection<UInt8>) throws(EncodeError) -> HCICommand {
        HCICommand(unchecked: .leSetScanResponseData, parameters: try legacyDataParameters(data, field: "scan response data"))
    }

    /// HCI_LE_Set_Advertising_Enable (0x200A).
    public static func leSetAdvertisingEnable(_ enable: Bool) -> HCICommand {
        HCICommand(unchecked: .leSetAdvertisingEnable, parameters: [enable ? 1 : 0])
    }

    /// HCI_LE_Set_Scan_Parameters (0x200B), 7 parameter bytes.
    public static func leSetScanParameters(_ p: LEScanParameters) throws(EncodeError) -> HCICommand {
        try EncodeError.check("scan interval", p.interval, in: 0x0004...0x4000)
        try EncodeError.check("scan window", p.window, in: 0x0004...0x4000)
        guard p.window <= p.interval else {
            throw .invalidCombination("scan window \(p.window) exceeds scan interval \(p.interval)")
        }
        var out: [UInt8] = [p.type.rawValue]
        out.appendLE16(p.interval)
        out.appendLE16(p.window)
        out.append(p.ownAddressType.rawValue)
        out.append(p.filterPolicy.rawValue)
        return HCICommand(unchecked: .leSetScanParameters, parameters: out[...])
    }

    /// HCI_LE_Set_Scan_Enable (0x200C). With `filterDuplicates` the controller reports each
    /// advertiser once per scan, which a ranging scanner must not ask for.
    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommand {
        HCICommand(unchecked: .leSetScanEnable, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    static func legacyDataParameters(_ data: some Collection<UInt8>, field: String) throws(EncodeError) -> ArraySlice<UInt8> {
        guard data.count <= legacyAdvertisingDataCapacity else {
            throw .tooLong(field: field, count: data.count, maximum: legacyAdvertisingDataCapacity)
        }
        var out: [UInt8] = [UInt8(data.count)]
        out.reserveCapacity(1 + legacyAdvertisingDataCapacity)
        out.append(contentsOf: data)
        out.append(contentsOf: repeatElement(0, count: legacyAdvertisingDataCapacity - data.count))
        return out[...]
    }

    static func checkChannelMap(_ map: AdvertisingChannelMap) throws(EncodeError) {
        guard !map.isEmpty, map.isSubset(of: .all) else {
            throw .outOfRange(field: "advertising channel map", value: Int(map.rawValue), allowed: 1...7)
        }
    }
}
