/// A command opcode: OGF in the top 6 bits, OCF in the low 10 (Core Spec Vol 4 Part E §5.4.1).
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `ogf` keeps 6 bits and `ocf` 10, as the opcode field does.
    public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    public var ocf: UInt16 { rawValue & 0x03FF }

    // OGF 0x03: controller & baseband
    public static let setEventMask = HCIOpcode(ogf: 0x03, ocf: 0x0001)
    public static let reset = HCIOpcode(ogf: 0x03, ocf: 0x0003)
    // OGF 0x04: informational
    public static let readLocalVersionInformation = HCIOpcode(ogf: 0x04, ocf: 0x0001)
    public static let readLocalSupportedCommands = HCIOpcode(ogf: 0x04, ocf: 0x0002)
    // OGF 0x08: LE controller
    public static let leSetEventMask = HCIOpcode(ogf: 0x08, ocf: 0x0001)
    public static let leReadLocalSupportedFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0003)
    public static let leSetAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0006)
    public static let leSetAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0008)
    public static let leSetScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0009)
    public static let leSetAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x000A)
    public static let leSetScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x000B)
    public static let leSetScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x000C)
    public static let leSetExtendedAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0036)
    public static let leSetExtendedAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0037)
    public static let leSetExtendedAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x0039)
    public static let leSetExtendedScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x0041)
    public static let leSetExtendedScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x0042)

    static let names: [HCIOpcode: String] = [
        .setEventMask: "Set_Event_Mask",
        .reset: "Reset",
        .readLocalVersionInformation: "Read_Local_Version_Information",
        .readLocalSupportedCommands: "Read_Local_Supported_Commands",
        .leSetEventMask: "LE_Set_Event_Mask",
        .leReadLocalSupportedFeatures: "LE_Read_Local_Supported_Features",
        .leSetAdvertisingParameters: "LE_Set_Advertising_Parameters",
        .leSetAdvertisingData: "LE_Set_Advertising_Data",
        .leSetScanResponseData: "LE_Set_Scan_Response_Data",
        .leSetAdvertisingEnable: "LE_Set_Advertising_Enable",
        .leSetScanParameters: "LE_Set_Scan_Parameters",
        .leSetScanEnable: "LE_Set_Scan_Enable",
        .leSetExtendedAdvertisingParameters: "LE_Set_Extended_Advertising_Parameters",
        .leSetExtendedAdvertisingData: "LE_Set_Extended_Advertising_Data",
        .leSetExtendedAdvertisingEnable: "LE_Set_Extended_Advertising_Enable",
        .leSetExtendedScanParameters: "LE_Set_Extended_Scan_Parameters",
        .leSetExtendedScanEnable: "LE_Set_Extended_Scan_Enable",
    ]

    /// The spec's command name when known (`LE_Set_Scan_Enable`), else `0x200C`.
    public var description: String { Self.names[self] ?? "0x\(hex(rawValue))" }
}

/// An HCI status / error code (Core Spec Vol 1 Part F). Raw so unknown codes survive.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = HCIStatus(rawValue: 0x00)
    public static let unknownCommand = HCIStatus(rawValue: 0x01)
    public static let unknownConnectionIdentifier = HCIStatus(rawValue: 0x02)
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    public static let unsupportedFeatureOrParameterValue = HCIStatus(rawValue: 0x11)
    public static let invalidParameters = HCIStatus(rawValue: 0x12)
    public static let remoteUserTerminatedConnection = HCIStatus(rawValue: 0x13)
    public static let connectionTerminatedByLocalHost = HCIStatus(rawValue: 0x16)
    public static let unknownAdvertisingIdentifier = HCIStatus(rawValue: 0x42)
    public static let limitReached = HCIStatus(rawValue: 0x43)

    public var isSuccess: Bool { rawValue == 0 }

    public var description: String {
        switch self {
        case .success: "success"
        case .unknownCommand: "unknown HCI command (0x01)"
        case .unknownConnectionIdentifier: "unknown connection identifier (0x02)"
        case .commandDisallowed: "command disallowed (0x0C)"
        case .unsupportedFeatureOrParameterValue: "unsupported feature or parameter value (0x11)"
        case .invalidParameters: "invalid HCI command parameters (0x12)"
        case .remoteUserTerminatedConnection: "remote user terminated connection (0x13)"
        case .connectionTerminatedByLocalHost: "connection terminated by local host (0x16)"
        case .unknownAdvertisingIdentifier: "unknown advertising identifier (0x42)"
        case .limitReached: "limit reached (0x43)"
        default: "HCI error 0x\(hex(rawValue))"
        }
    }
}
