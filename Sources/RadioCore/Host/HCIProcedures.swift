import BeaconCore

/// What the controller said it supports, read during initialisation.
struct ControllerCapabilities: Equatable, Sendable {
    /// Drive the controller with the extended advertising/scanning commands.
    var extended: Bool

    /// `commands`: Read_Local_Supported_Commands' 64-octet bitmap; `features`: LE feature bits.
    /// The LE Extended Advertising feature (bit 12) makes the extended commands mandatory, and
    /// Linux (`ext_adv_capable`) decides on the feature bit alone; so do we. Bumble's virtual
    /// controller sets the feature and implements the commands but leaves them out of its list.
    init(commands: [UInt8], features: UInt64) {
        extended = features & (1 << 12) != 0
        let extendedCommands = [(36, 2), (36, 3), (36, 5), (37, 5), (37, 6)]
        listsExtendedCommands = extendedCommands.allSatisfy { commands.count > $0.0 && commands[$0.0] & (1 << $0.1) != 0 }
    }

    /// Whether the command list names them too (reported, not relied on).
    var listsExtendedCommands = false
    /// Read_Local_Version_Information's HCI_Version (0x09: Core 5.0); nil when it did not say.
    var hciVersion: UInt8?

    /// The shortest interval the controller accepts for `type`: 20 ms, except legacy
    /// non-connectable and scannable PDUs on a controller older than Core 5.0 (or that does not
    /// say), whose floor is 100 ms (Core 4.2 Vol 2 Part E §7.8.5; lifted in 5.0).
    func shortestIntervalMilliseconds(for type: AdvertisingKind) -> Int {
        type == .connectable || extended || (hciVersion ?? 0) >= 0x09 ? BeaconAdvertisement.shortestIntervalMilliseconds : 100
    }

    init(extended: Bool) { self.extended = extended }
}

/// Which command set to drive the controller with.
public enum HCICommandSet: String, Sendable, CaseIterable {
    /// Extended when the controller supports it, else legacy.
    case automatic
    /// The Bluetooth 4.x commands, whatever the controller supports.
    case legacy
}

/// The HCI command sequences the radio needs, written once for every byte transport
/// (h4 over TCP/unix/tty, hci user channel, the simulator).
enum HCIProcedures {
    static let advertisingHandle: UInt8 = 0

    /// Reset, event masks (LE Meta with legacy and extended advertising reports), and the
    /// controller's supported commands and LE features.
    static func initialise(_ host: HCIHost, commandSet: HCICommandSet) async throws -> ControllerCapabilities {
        try await host.send(.reset)
        try await host.send(.setEventMask(HCIEventMask.defaultEvents | HCIEventMask.leMeta))
        let version = HCIReturnParameters.hciVersion(try await host.send(.readLocalVersionInformation))
        let commands = try await host.send(.readLocalSupportedCommands).dropFirst()
        let featureBytes = try await host.send(.leReadLocalSupportedFeatures).dropFirst()
        let features = featureBytes.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
        try await host.send(.leSetEventMask(HCIEventMask.leDefault | HCIEventMask.leAdvertisingReport
                                            | HCIEventMask.leExtendedAdvertisingReport))
        var capabilities = ControllerCapabilities(commands: Array(commands), features: features)
        if commandSet == .legacy { capabilities = ControllerCapabilities(extended: false) }
        capabilities.hciVersion = version
        return capabilities
    }

    /// Interval in 0.625 ms units, clamped to what the controller accepts (20 ms ... 10.24 s).
    static func intervalUnits(milliseconds: Int) -> UInt16 {
        UInt16(clamping: min(max(milliseconds * 1000 / 625, 0x20), 0x4000))
    }

    /// The highest power an advertising set may ask for (Advertising_TX_Power, Core Spec Vol 4
    /// Part E §7.8.53); the controller uses the highest it has at or below what is asked.
    static let highestRequestablePower: Int8 = 20

    /// Disables advertising, sets parameters (and `newAddress`, when given, as the advertising
    /// address), data, and enables again. Returns the transmit power the controller reported, if any.
    /// A legacy controller refuses a new random address while it scans, so the scan pauses around it.
    static func startAdvertising(_ host: HCIHost, _ ad: BeaconAdvertisement, _ caps: ControllerCapabilities,
                                 newAddress: BDAddress?, scanning: Bool) async throws -> Int8? {
        let units = intervalUnits(milliseconds: max(ad.intervalMilliseconds, caps.shortestIntervalMilliseconds(for: ad.type)))
        let ownAddress: OwnAddressType = ad.address == .rotatingPrivate ? .randomDevice : .publicDevice
        if caps.extended {
            let set = ExtendedAdvertisingSet(handle: advertisingHandle)
            try await host.send(.leSetExtendedAdvertisingEnable(false, sets: [set]))
            let properties: AdvertisingEventProperties = switch ad.type {
            case .nonConnectable: [.legacy]
            case .connectable: [.legacy, .connectable, .scannable]
            case .scannable: [.legacy, .scannable]
            }
            let power: Int8? = ad.transmitPower == .highest ? try await highestPower(host) : nil
            let reply = try await host.send(.leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters(
                handle: advertisingHandle, eventProperties: properties,
                primaryIntervalMin: UInt32(units), primaryIntervalMax: UInt32(units),
                ownAddressType: ownAddress, txPower: power)))
            if let newAddress {
                try await host.send(.leSetAdvertisingSetRandomAddress(handle: advertisingHandle, address: newAddress))
            }
            try await replaceData(host, ad.beacon, caps)
            try await host.send(.leSetExtendedAdvertisingEnable(true, sets: [set]))
            return HCIReturnParameters.selectedTxPower(reply)
        } else {
            try await host.send(.leSetAdvertisingEnable(false))
            if let newAddress {
                if scanning { try await host.send(.leSetScanEnable(false, filterDuplicates: false)) }
                try await host.send(.leSetRandomAddress(newAddress))
                if scanning { try await host.send(.leSetScanEnable(true, filterDuplicates: false)) }
            }
            let type: LegacyAdvertisingType = switch ad.type {
            case .nonConnectable: .advNonconnInd
            case .connectable: .advInd
            case .scannable: .advScanInd
            }
            try await host.send(.leSetAdvertisingParameters(LEAdvertisingParameters(
                intervalMin: units, intervalMax: units, type: type, ownAddressType: ownAddress)))
            try await replaceData(host, ad.beacon, caps)
            try await host.send(.leSetAdvertisingEnable(true))
            // Legacy advertising cannot choose its power; the controller says what it uses.
            guard ad.transmitPower == .highest else { return nil }
            return HCIReturnParameters.advertisingChannelTxPower(try await host.send(.leReadAdvertisingPhysicalChannelTxPower))
        }
    }

    /// The controller's highest power (LE Read Transmit Power), or the highest any set may ask
    /// for when it cannot say (the command is optional): it then uses the highest it has below that.
    static func highestPower(_ host: HCIHost) async throws -> Int8 {
        do {
            let range = HCIReturnParameters.transmitPowerRange(try await host.send(.leReadTransmitPower))
            return min(range?.max ?? highestRequestablePower, highestRequestablePower)
        } catch is HCIHost.CommandFailed {
            return highestRequestablePower
        }
    }

    /// New advertising data while advertising continues (legacy sets may change data while enabled).
    static func replaceData(_ host: HCIHost, _ beacon: IBeacon, _ caps: ControllerCapabilities) async throws {
        if caps.extended {
            try await host.send(.leSetExtendedAdvertisingData(handle: advertisingHandle, operation: .complete,
                                                              fragmentPreference: .shouldNotFragment,
                                                              data: beacon.advertisingData))
        } else {
            try await host.send(.leSetAdvertisingData(beacon.advertisingData))
        }
    }

    static func stopAdvertising(_ host: HCIHost, _ caps: ControllerCapabilities) async throws {
        if caps.extended {
            try await host.send(.leSetExtendedAdvertisingEnable(false, sets: [ExtendedAdvertisingSet(handle: advertisingHandle)]))
        } else {
            try await host.send(.leSetAdvertisingEnable(false))
        }
    }

    /// Passive, continuous (window = interval = 10 ms), duplicate filtering off so every
    /// advertisement is reported.
    static func startScanning(_ host: HCIHost, _ caps: ControllerCapabilities) async throws {
        if caps.extended {
            try await host.send(.leSetExtendedScanParameters(LEExtendedScanParameters()))
            try await host.send(.leSetExtendedScanEnable(true, filterDuplicates: .disabled))
        } else {
            try await host.send(.leSetScanParameters(LEScanParameters()))
            try await host.send(.leSetScanEnable(true, filterDuplicates: false))
        }
    }

    static func stopScanning(_ host: HCIHost, _ caps: ControllerCapabilities) async throws {
        if caps.extended {
            try await host.send(.leSetExtendedScanEnable(false))
        } else {
            try await host.send(.leSetScanEnable(false, filterDuplicates: false))
        }
    }
}
