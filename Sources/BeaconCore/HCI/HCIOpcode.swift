/// A command opcode: OGF in the top 6 bits, OCF in the low 10 (Core Spec Vol 4 Part E §5.4.1).
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit opcode as sent (little-endian on the wire).
    public var rawValue: UInt16
    /// Any opcode, known or not.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `ogf` keeps 6 bits and `ocf` 10, as the opcode field does.
    public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    /// The opcode group (0x08: LE controller commands).
    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    /// The command within its group.
    public var ocf: UInt16 { rawValue & 0x03FF }

    // OGF 0x03: controller & baseband
    /// `Set_Event_Mask`, opcode 0x0C01.
    public static let setEventMask = HCIOpcode(ogf: 0x03, ocf: 0x0001)
    /// `Reset`, opcode 0x0C03.
    public static let reset = HCIOpcode(ogf: 0x03, ocf: 0x0003)
    // OGF 0x04: informational
    /// `Read_Local_Version_Information`, opcode 0x1001.
    public static let readLocalVersionInformation = HCIOpcode(ogf: 0x04, ocf: 0x0001)
    /// `Read_Local_Supported_Commands`, opcode 0x1002.
    public static let readLocalSupportedCommands = HCIOpcode(ogf: 0x04, ocf: 0x0002)
    // OGF 0x08: LE controller
    /// `LE_Set_Event_Mask`, opcode 0x2001.
    public static let leSetEventMask = HCIOpcode(ogf: 0x08, ocf: 0x0001)
    /// `LE_Read_Local_Supported_Features`, opcode 0x2003.
    public static let leReadLocalSupportedFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0003)
    /// `LE_Set_Random_Address`, opcode 0x2005.
    public static let leSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0005)
    /// `LE_Set_Advertising_Parameters`, opcode 0x2006.
    public static let leSetAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0006)
    /// `LE_Read_Advertising_Physical_Channel_Tx_Power`, opcode 0x2007.
    public static let leReadAdvertisingPhysicalChannelTxPower = HCIOpcode(ogf: 0x08, ocf: 0x0007)
    /// `LE_Set_Advertising_Data`, opcode 0x2008.
    public static let leSetAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0008)
    /// `LE_Set_Scan_Response_Data`, opcode 0x2009.
    public static let leSetScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0009)
    /// `LE_Set_Advertising_Enable`, opcode 0x200A.
    public static let leSetAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x000A)
    /// `LE_Set_Scan_Parameters`, opcode 0x200B.
    public static let leSetScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x000B)
    /// `LE_Set_Scan_Enable`, opcode 0x200C.
    public static let leSetScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x000C)
    /// `LE_Set_Advertising_Set_Random_Address`, opcode 0x2035.
    public static let leSetAdvertisingSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0035)
    /// `LE_Set_Extended_Advertising_Parameters`, opcode 0x2036.
    public static let leSetExtendedAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0036)
    /// `LE_Set_Extended_Advertising_Data`, opcode 0x2037.
    public static let leSetExtendedAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0037)
    /// `LE_Set_Extended_Advertising_Enable`, opcode 0x2039.
    public static let leSetExtendedAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x0039)
    /// `LE_Set_Extended_Scan_Parameters`, opcode 0x2041.
    public static let leSetExtendedScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x0041)
    /// `LE_Set_Extended_Scan_Enable`, opcode 0x2042.
    public static let leSetExtendedScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x0042)

    /// `LE_Read_Transmit_Power`, opcode 0x204B.
    public static let leReadTransmitPower = HCIOpcode(ogf: 0x08, ocf: 0x004B)

    static let names: [HCIOpcode: String] = [
        .setEventMask: "Set_Event_Mask",
        .reset: "Reset",
        .readLocalVersionInformation: "Read_Local_Version_Information",
        .readLocalSupportedCommands: "Read_Local_Supported_Commands",
        .leSetEventMask: "LE_Set_Event_Mask",
        .leReadLocalSupportedFeatures: "LE_Read_Local_Supported_Features",
        .leSetRandomAddress: "LE_Set_Random_Address",
        .leSetAdvertisingParameters: "LE_Set_Advertising_Parameters",
        .leReadAdvertisingPhysicalChannelTxPower: "LE_Read_Advertising_Physical_Channel_Tx_Power",
        .leSetAdvertisingData: "LE_Set_Advertising_Data",
        .leSetScanResponseData: "LE_Set_Scan_Response_Data",
        .leSetAdvertisingEnable: "LE_Set_Advertising_Enable",
        .leSetScanParameters: "LE_Set_Scan_Parameters",
        .leSetScanEnable: "LE_Set_Scan_Enable",
        .leSetAdvertisingSetRandomAddress: "LE_Set_Advertising_Set_Random_Address",
        .leSetExtendedAdvertisingParameters: "LE_Set_Extended_Advertising_Parameters",
        .leSetExtendedAdvertisingData: "LE_Set_Extended_Advertising_Data",
        .leSetExtendedAdvertisingEnable: "LE_Set_Extended_Advertising_Enable",
        .leSetExtendedScanParameters: "LE_Set_Extended_Scan_Parameters",
        .leSetExtendedScanEnable: "LE_Set_Extended_Scan_Enable",
        .leReadTransmitPower: "LE_Read_Transmit_Power",
    ]

    /// The spec's command name when known (`LE_Set_Scan_Enable`), else `0x200C`.
    public var description: String { Self.names[self] ?? "0x\(hex(rawValue))" }
}

/// An HCI status / error code (Core Spec Vol 1 Part F). Raw so unknown codes survive.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The status byte as the controller sent it.
    public var rawValue: UInt8
    /// Any status, known or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00: Success.
    public static let success = HCIStatus(rawValue: 0x00)
    /// 0x01: Unknown HCI command.
    public static let unknownCommand = HCIStatus(rawValue: 0x01)
    /// 0x02: Unknown connection identifier.
    public static let unknownConnectionIdentifier = HCIStatus(rawValue: 0x02)
    /// 0x0C: Command disallowed.
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    /// 0x11: Unsupported feature or parameter value.
    public static let unsupportedFeatureOrParameterValue = HCIStatus(rawValue: 0x11)
    /// 0x12: Invalid HCI command parameters.
    public static let invalidParameters = HCIStatus(rawValue: 0x12)
    /// 0x13: Remote user terminated connection.
    public static let remoteUserTerminatedConnection = HCIStatus(rawValue: 0x13)
    /// 0x16: Connection terminated by local host.
    public static let connectionTerminatedByLocalHost = HCIStatus(rawValue: 0x16)
    /// 0x42: Unknown advertising identifier.
    public static let unknownAdvertisingIdentifier = HCIStatus(rawValue: 0x42)
    /// 0x43: Limit reached.
    public static let limitReached = HCIStatus(rawValue: 0x43)

    /// Whether the command succeeded (status 0x00).
    public var isSuccess: Bool { rawValue == 0 }

    /// The spec's meaning in words with its code ("command disallowed (0x0C)").
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
