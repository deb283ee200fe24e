/// An HCI command packet: opcode and little-endian parameters (Core Spec Vol 4 Part E §5.4.1).
///
/// Build commands with the static factories (`.reset`, `.leSetScanEnable(...)`, ...), which
/// validate their parameters; decode commands seen in captures with `H4Packet`.
public struct HCICommand: Equatable, Sendable, CustomStringConvertible {
    /// Which command.
    public let opcode: HCIOpcode
    /// The parameters as sent, at most 255 bytes.
    public let parameters: ArraySlice<UInt8>

    /// A command with arbitrary parameters; fails when they do not fit the one-byte length field.
    public init(opcode: HCIOpcode, parameters: some Collection<UInt8> = []) throws(EncodeError) {
        guard parameters.count <= 0xFF else {
            throw EncodeError.tooLong(field: "command parameters", count: parameters.count, maximum: 0xFF)
        }
        self.init(unchecked: opcode, parameters: ArraySlice(parameters))
    }

    init(unchecked opcode: HCIOpcode, parameters: ArraySlice<UInt8>) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// `opcode (LE) | length | parameters`, without the H4 indicator.
    public func encode() -> [UInt8] {
        var out: [UInt8] = [UInt8(truncatingIfNeeded: opcode.rawValue), UInt8(truncatingIfNeeded: opcode.rawValue >> 8),
                            UInt8(truncatingIfNeeded: parameters.count)]
        out.append(contentsOf: parameters)
        return out
    }

    /// The packet to send over H4.
    public var packet: H4Packet { .command(self) }

    /// "LE_Set_Scan_Enable(2 bytes)".
    public var description: String { "\(opcode)(\(parameters.count) bytes)" }
}

// MARK: - Controller setup and information

extension HCICommand {
    /// HCI_Reset (0x0C03).
    public static let reset = HCICommand(unchecked: .reset, parameters: [])
    /// HCI_Read_Local_Version_Information (0x1001).
    public static let readLocalVersionInformation = HCICommand(unchecked: .readLocalVersionInformation, parameters: [])
    /// HCI_Read_Local_Supported_Commands (0x1002).
    public static let readLocalSupportedCommands = HCICommand(unchecked: .readLocalSupportedCommands, parameters: [])
    /// HCI_LE_Read_Local_Supported_Features (0x2003).
    public static let leReadLocalSupportedFeatures = HCICommand(unchecked: .leReadLocalSupportedFeatures, parameters: [])

    /// HCI_Set_Event_Mask (0x0C01). Bit n enables event code n+1; see `HCIEventMask`.
    public static func setEventMask(_ mask: UInt64) -> HCICommand {
        HCICommand(unchecked: .setEventMask, parameters: littleEndian(mask)[...])
    }

    /// HCI_LE_Set_Event_Mask (0x2001). Bit n enables LE subevent n+1; see `HCIEventMask`.
    public static func leSetEventMask(_ mask: UInt64) -> HCICommand {
        HCICommand(unchecked: .leSetEventMask, parameters: littleEndian(mask)[...])
    }
}

/// Event mask bits the scanner and advertiser need.
public enum HCIEventMask {
    /// The controller's default mask after reset (Core Spec Vol 4 Part E §7.3.1).
    public static let defaultEvents: UInt64 = 0x0000_1FFF_FFFF_FFFF
    /// LE Meta event (code 0x3E): off by default, and every LE subevent rides in it.
    public static let leMeta: UInt64 = 1 << 61
    /// Default LE subevents after reset (connection complete ... LTK request).
    public static let leDefault: UInt64 = 0x1F
    /// LE Advertising Report (subevent 0x02).
    public static let leAdvertisingReport: UInt64 = 1 << 1
    /// LE Extended Advertising Report (subevent 0x0D).
    public static let leExtendedAdvertisingReport: UInt64 = 1 << 12
}

func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}

extension Array where Element == UInt8 {
    mutating func appendLE16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func appendLE24(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16))
    }
}
