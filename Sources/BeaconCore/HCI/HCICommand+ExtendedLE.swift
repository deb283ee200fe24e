// Extended (Bluetooth 5) advertising and scanning commands, Core Spec Vol 4 Part E §7.8.53-7.8.65.
// Multi-element parameters are interleaved per element (handle[0], duration[0], ..., handle[1], ...),
// as the spec's array notation means and as Linux and Bumble encode them.

/// Parameters of LE Set Extended Advertising Parameters. Intervals are 24-bit, in 0.625 ms units.
public struct LEExtendedAdvertisingParameters: Equatable, Sendable {
    /// 0x00...0xEF.
    public var handle: UInt8
    /// What kind of PDUs the set sends (`.legacy` alone: ADV_NONCONN_IND).
    public var eventProperties: AdvertisingEventProperties
    /// 0x000020...0xFFFFFF.
    public var primaryIntervalMin: UInt32
    /// 0x000020...0xFFFFFF, at least `primaryIntervalMin`.
    public var primaryIntervalMax: UInt32
    /// The primary advertising channels used.
    public var primaryChannelMap: AdvertisingChannelMap
    /// Which of the controller's addresses advertises.
    public var ownAddressType: OwnAddressType
    /// The peer's address type, for directed advertising only.
    public var peerAddressType: PeerAddressType
    /// The peer, for directed advertising only.
    public var peerAddress: BDAddress
    /// Which scan and connection requests are answered.
    public var filterPolicy: AdvertisingFilterPolicy
    /// Requested transmit power, -127...20 dBm; nil lets the controller choose.
    public var txPower: Int8?
    /// LE 1M or LE Coded.
    public var primaryPHY: PHY
    /// Advertising events the secondary channel may skip (0: none).
    public var secondaryMaxSkip: UInt8
    /// LE 1M, LE 2M or LE Coded.
    public var secondaryPHY: PHY
    /// Advertising set ID, 0x0...0xF; scanners reassemble fragments per (address, SID).
    public var sid: UInt8
    /// Whether the controller reports scan requests it receives.
    public var scanRequestNotification: Bool

    /// Defaults describe a legacy ADV_NONCONN_IND beacon at 1.28 s on all channels.
    public init(handle: UInt8 = 0, eventProperties: AdvertisingEventProperties = [.legacy],
                primaryIntervalMin: UInt32 = 0x0800, primaryIntervalMax: UInt32 = 0x0800,
                primaryChannelMap: AdvertisingChannelMap = .all, ownAddressType: OwnAddressType = .publicDevice,
                peerAddressType: PeerAddressType = .publicDevice, peerAddress: BDAddress = .zero,
                filterPolicy: AdvertisingFilterPolicy = .acceptAll, txPower: Int8? = nil,
                primaryPHY: PHY = .le1M, secondaryMaxSkip: UInt8 = 0, secondaryPHY: PHY = .le1M,
                sid: UInt8 = 0, scanRequestNotification: Bool = false) {
        self.handle = handle
        self.eventProperties = eventProperties
        self.primaryIntervalMin = primaryIntervalMin
        self.primaryIntervalMax = primaryIntervalMax
        self.primaryChannelMap = primaryChannelMap
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.filterPolicy = filterPolicy
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryMaxSkip = secondaryMaxSkip
        self.secondaryPHY = secondaryPHY
        self.sid = sid
        self.scanRequestNotification = scanRequestNotification
    }
}

/// One advertising set to enable or disable.
public struct ExtendedAdvertisingSet: Equatable, Sendable {
    /// The advertising set (0x00...0xEF).
    public var handle: UInt8
    /// In 10 ms units; 0 advertises until disabled.
    public var duration: UInt16
    /// 0 means no limit.
    public var maxExtendedAdvertisingEvents: UInt8

    /// Set `handle`, advertising until disabled by default.
    public init(handle: UInt8, duration: UInt16 = 0, maxExtendedAdvertisingEvents: UInt8 = 0) {
        self.handle = handle
        self.duration = duration
        self.maxExtendedAdvertisingEvents = maxExtendedAdvertisingEvents
    }
}

/// Scan type, interval and window for one PHY (0.625 ms units, 0x0004...0xFFFF).
public struct PHYScanParameters: Equatable, Sendable {
    /// Passive (listen only) or active (scan requests).
    public var type: ScanType
    /// How often a scan window starts.
    public var interval: UInt16
    /// How long each window listens; equal to `interval`: continuously.
    public var window: UInt16

    /// Defaults: passive, listening continuously in 10 ms windows.
    public init(type: ScanType = .passive, interval: UInt16 = 0x0010, window: UInt16 = 0x0010) {
        self.type = type
        self.interval = interval
        self.window = window
    }
}

/// Parameters of LE Set Extended Scan Parameters: at least one of the two PHYs.
public struct LEExtendedScanParameters: Equatable, Sendable {
    /// The address scan requests come from.
    public var ownAddressType: OwnAddressType
    /// Which advertising packets are reported.
    public var filterPolicy: ScanningFilterPolicy
    /// Scanning on LE 1M; nil: not on it.
    public var le1M: PHYScanParameters?
    /// Scanning on LE Coded (long range); nil: not on it.
    public var leCoded: PHYScanParameters?

    /// Defaults: every advertisement, on LE 1M only.
    public init(ownAddressType: OwnAddressType = .publicDevice, filterPolicy: ScanningFilterPolicy = .basicUnfiltered,
                le1M: PHYScanParameters? = PHYScanParameters(), leCoded: PHYScanParameters? = nil) {
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
        self.le1M = le1M
        self.leCoded = leCoded
    }
}

extension HCICommand {
    /// Extended advertising data per LE Set Extended Advertising Data command.
    public static let extendedAdvertisingDataFragmentCapacity = 251
    /// The most advertising data an extended set can carry across fragments.
    public static let extendedAdvertisingDataCapacity = 1650

    /// HCI_LE_Set_Extended_Advertising_Parameters (0x2036), version 1: 25 parameter bytes.
    public static func leSetExtendedAdvertisingParameters(_ p: LEExtendedAdvertisingParameters) throws(EncodeError) -> HCICommand {
        try EncodeError.check("advertising handle", p.handle, in: 0x00...0xEF)
        try checkEventProperties(p.eventProperties)
        try EncodeError.check("primary advertising interval min", p.primaryIntervalMin, in: 0x20...0xFF_FFFF)
        try EncodeError.check("primary advertising interval max", p.primaryIntervalMax, in: 0x20...0xFF_FFFF)
        guard p.primaryIntervalMin <= p.primaryIntervalMax else {
            throw .invalidCombination("primary advertising interval min \(p.primaryIntervalMin) exceeds max \(p.primaryIntervalMax)")
        }
        try checkChannelMap(p.primaryChannelMap)
        if let power = p.txPower { try EncodeError.check("advertising TX power", power, in: -127...20) }
        guard p.primaryPHY == .le1M || p.primaryPHY == .leCoded else {
            throw .invalidCombination("primary advertising PHY must be LE 1M or LE Coded, not \(p.primaryPHY)")
        }
        try EncodeError.check("secondary advertising PHY", p.secondaryPHY.rawValue, in: 1...3)
        try EncodeError.check("advertising SID", p.sid, in: 0x0...0xF)

        var out: [UInt8] = [p.handle]
        out.reserveCapacity(25)
        out.appendLE16(p.eventProperties.rawValue)
        out.appendLE24(p.primaryIntervalMin)
        out.appendLE24(p.primaryIntervalMax)
        out.append(p.primaryChannelMap.rawValue)
        out.append(p.ownAddressType.rawValue)
        out.append(p.peerAddressType.rawValue)
        p.peerAddress.append(to: &out)
        out.append(p.filterPolicy.rawValue)
        out.append(UInt8(bitPattern: p.txPower ?? 0x7F))
        out.append(p.primaryPHY.rawValue)
        out.append(p.secondaryMaxSkip)
        out.append(p.secondaryPHY.rawValue)
        out.append(p.sid)
        out.append(p.scanRequestNotification ? 1 : 0)
        return HCICommand(unchecked: .leSetExtendedAdvertisingParameters, parameters: out[...])
    }

    /// HCI_LE_Set_Extended_Advertising_Data (0x2037) for one fragment of at most 251 bytes.
    public static func leSetExtendedAdvertisingData(
        handle: UInt8, operation: ExtendedAdvertisingDataOperation = .complete,
        fragmentPreference: FragmentPreference = .mayFragment, data: some Collection<UInt8>
    ) throws(EncodeError) -> HCICommand {
        try EncodeError.check("advertising handle", handle, in: 0x00...0xEF)
        guard data.count <= extendedAdvertisingDataFragmentCapacity else {
            throw .tooLong(field: "extended advertising data fragment", count: data.count, maximum: extendedAdvertisingDataFragmentCapacity)
        }
        if operation == .unchangedData, !data.isEmpty {
            throw .invalidCombination("operation 'unchanged data' carries no data, got \(data.count) bytes")
        }
        var out: [UInt8] = [handle, operation.rawValue, fragmentPreference.rawValue, UInt8(data.count)]
        out.append(contentsOf: data)
        return HCICommand(unchecked: .leSetExtendedAdvertisingData, parameters: out[...])
    }

    /// The LE Set Extended Advertising Data commands that set `data` of up to 1650 bytes:
    /// one `.complete` command, or first / intermediate... / last fragments of 251 bytes.
    public static func leSetExtendedAdvertisingDataCommands(
        handle: UInt8, fragmentPreference: FragmentPreference = .mayFragment, data: [UInt8]
    ) throws(EncodeError) -> [HCICommand] {
        guard data.count <= extendedAdvertisingDataCapacity else {
            throw .tooLong(field: "extended advertising data", count: data.count, maximum: extendedAdvertisingDataCapacity)
        }
        let size = extendedAdvertisingDataFragmentCapacity
        guard data.count > size else {
            return [try leSetExtendedAdvertisingData(handle: handle, operation: .complete, fragmentPreference: fragmentPreference, data: data)]
        }
        var commands: [HCICommand] = []
        for start in stride(from: 0, to: data.count, by: size) {
            let end = min(start + size, data.count)
            let operation: ExtendedAdvertisingDataOperation =
                start == 0 ? .firstFragment : end == data.count ? .lastFragment : .intermediateFragment
            commands.append(try leSetExtendedAdvertisingData(handle: handle, operation: operation,
                                                             fragmentPreference: fragmentPreference, data: data[start..<end]))
        }
        return commands
    }

    /// HCI_LE_Set_Extended_Advertising_Enable (0x2039). Disabling with no sets disables all sets;
    /// enabling needs at least one.
    public static func leSetExtendedAdvertisingEnable(_ enable: Bool, sets: [ExtendedAdvertisingSet]) throws(EncodeError) -> HCICommand {
        guard sets.count <= 0x3F else { throw .tooLong(field: "advertising sets", count: sets.count, maximum: 0x3F) }
        if enable, sets.isEmpty { throw .invalidCombination("enabling extended advertising needs at least one set") }
        var out: [UInt8] = [enable ? 1 : 0, UInt8(sets.count)]
        out.reserveCapacity(2 + 4 * sets.count)
        for set in sets {
            try EncodeError.check("advertising handle", set.handle, in: 0x00...0xEF)
            out.append(set.handle)
            out.appendLE16(set.duration)
            out.append(set.maxExtendedAdvertisingEvents)
        }
        return HCICommand(unchecked: .leSetExtendedAdvertisingEnable, parameters: out[...])
    }

    /// HCI_LE_Set_Extended_Scan_Parameters (0x2041): per-PHY parameters, LE 1M first, then LE Coded.
    public static func leSetExtendedScanParameters(_ p: LEExtendedScanParameters) throws(EncodeError) -> HCICommand {
        let phys: [(bit: UInt8, name: String, params: PHYScanParameters?)] = [(1 << 0, "LE 1M", p.le1M), (1 << 2, "LE Coded", p.leCoded)]
        var scanningPHYs: UInt8 = 0
        var perPHY: [UInt8] = []
        for (bit, name, params) in phys {
            guard let params else { continue }
            try EncodeError.check("\(name) scan interval", params.interval, in: 0x0004...0xFFFF)
            try EncodeError.check("\(name) scan window", params.window, in: 0x0004...0xFFFF)
            guard params.window <= params.interval else {
                throw .invalidCombination("\(name) scan window \(params.window) exceeds scan interval \(params.interval)")
            }
            scanningPHYs |= bit
            perPHY.append(params.type.rawValue)
            perPHY.appendLE16(params.interval)
            perPHY.appendLE16(params.window)
        }
        guard scanningPHYs != 0 else { throw .invalidCombination("extended scanning needs LE 1M or LE Coded parameters") }
        let out: [UInt8] = [p.ownAddressType.rawValue, p.filterPolicy.rawValue, scanningPHYs] + perPHY
        return HCICommand(unchecked: .leSetExtendedScanParameters, parameters: out[...])
    }

    /// HCI_LE_Set_Extended_Scan_Enable (0x2042). `duration` is in 10 ms units and `period`
    /// in 1.28 s units; 0 means scan until disabled.
    public static func leSetExtendedScanEnable(
        _ enable: Bool, filterDuplicates: ExtendedScanDuplicateFilter = .disabled, duration: UInt16 = 0, period: UInt16 = 0
    ) throws(EncodeError) -> HCICommand {
        if enable, period != 0 {
            guard duration != 0 else { throw .invalidCombination("a scan period needs a non-zero scan duration") }
            // Duration must be shorter than the period: compare both in 10 ms units.
            guard Int(duration) < Int(period) * 128 else {
                throw .invalidCombination("scan duration \(duration)×10 ms is not shorter than period \(period)×1.28 s")
            }
        }
        if enable, filterDuplicates == .enabledResetEachPeriod, period == 0 {
            throw .invalidCombination("resetting duplicate filtering each period needs a non-zero period")
        }
        var out: [UInt8] = [enable ? 1 : 0, filterDuplicates.rawValue]
        out.appendLE16(duration)
        out.appendLE16(period)
        return HCICommand(unchecked: .leSetExtendedScanEnable, parameters: out[...])
    }

    static func checkEventProperties(_ properties: AdvertisingEventProperties) throws(EncodeError) {
        guard properties.isSubset(of: .defined) else {
            throw .invalidCombination("advertising event properties 0x\(hex(properties.rawValue)) set reserved bits")
        }
        if properties.contains(.legacy) {
            guard AdvertisingEventProperties.legacyCombinations.contains(properties.rawValue) else {
                throw .invalidCombination("advertising event properties 0x\(hex(properties.rawValue)) are not a legacy PDU type")
            }
        } else {
            if properties.isSuperset(of: [.connectable, .scannable]) {
                throw .invalidCombination("extended advertising cannot be both connectable and scannable")
            }
            if properties.contains(.highDutyCycleDirected) {
                throw .invalidCombination("high duty cycle directed advertising needs legacy PDUs")
            }
        }
    }
}
