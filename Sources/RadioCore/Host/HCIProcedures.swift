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
        let commands = try await host.send(.readLocalSupportedCommands).dropFirst()
        let featureBytes = try await host.send(.leReadLocalSupportedFeatures).dropFirst()
        let features = featureBytes.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
        try await host.send(.leSetEventMask(HCIEventMask.leDefault | HCIEventMask.leAdvertisingReport
                                            | HCIEventMask.leExtendedAdvertisingReport))
        let capabilities = ControllerCapabilities(commands: Array(commands), features: features)
        return commandSet == .legacy ? ControllerCapabilities(extended: false) : capabilities
    }

    /// Interval in 0.625 ms units, clamped to what the controller accepts (20 ms ... 10.24 s).
    static func intervalUnits(milliseconds: Int) -> UInt16 {
        UInt16(clamping: min(max(milliseconds * 1000 / 625, 0x20), 0x4000))
    }

    static func startAdvertising(_ host: HCIHost, _ ad: BeaconAdvertisement, _ caps: ControllerCapabilities) async throws {
        let units = intervalUnits(milliseconds: ad.intervalMilliseconds)
        if caps.extended {
            let set = ExtendedAdvertisingSet(handle: advertisingHandle)
            try await host.send(.leSetExtendedAdvertisingEnable(false, sets: [set]))
            let properties: AdvertisingEventProperties = switch ad.type {
            case .nonConnectable: [.legacy]
            case .connectable: [.legacy, .connectable, .scannable]
            case .scannable: [.legacy, .scannable]
            }
            try await host.send(.leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters(
                handle: advertisingHandle, eventProperties: properties,
                primaryIntervalMin: UInt32(units), primaryIntervalMax: UInt32(units))))
            try await replaceData(host, ad.beacon, caps)
            try await host.send(.leSetExtendedAdvertisingEnable(true, sets: [set]))
        } else {
            try await host.send(.leSetAdvertisingEnable(false))
            let type: LegacyAdvertisingType = switch ad.type {
            case .nonConnectable: .advNonconnInd
            case .connectable: .advInd
            case .scannable: .advScanInd
            }
            try await host.send(.leSetAdvertisingParameters(LEAdvertisingParameters(
                intervalMin: units, intervalMax: units, type: type)))
            try await replaceData(host, ad.beacon, caps)
            try await host.send(.leSetAdvertisingEnable(true))
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
