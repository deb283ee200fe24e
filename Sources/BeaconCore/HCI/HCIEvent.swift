/// A decoded HCI event (Core Spec Vol 4 Part E §7.7). Events RideBeacon does not interpret
/// decode to `.unknown` / `.unknownLEMeta` with their raw parameters rather than failing.
public enum HCIEvent: Equatable, Sendable {
    /// Command Complete (0x0E): a command finished, with its return parameters.
    case commandComplete(CommandComplete)
    /// Command Status (0x0F): a command was accepted (or refused) and runs on.
    case commandStatus(CommandStatus)
    /// Disconnection Complete (0x05).
    case disconnectionComplete(DisconnectionComplete)
    /// LE Meta subevent 0x02: one or more legacy reports.
    case leAdvertisingReport([AdvertisingReport])
    /// LE Meta subevent 0x0D: one or more extended reports.
    case leExtendedAdvertisingReport([AdvertisingReport])
    /// An LE Meta subevent RideBeacon does not interpret, kept raw.
    case unknownLEMeta(subevent: UInt8, parameters: ArraySlice<UInt8>)
    /// Any other event, kept raw.
    case unknown(code: UInt8, parameters: ArraySlice<UInt8>)

    /// Command Complete (0x0E).
    public struct CommandComplete: Equatable, Sendable {
        /// How many more commands the controller accepts now.
        public var numHCICommandPackets: UInt8
        /// The command this completes.
        public var opcode: HCIOpcode
        /// Command-specific; for every real command the first byte is the status.
        public var returnParameters: ArraySlice<UInt8>

        /// A Command Complete as a controller would send it (tests and the simulator build them).
        public init(numHCICommandPackets: UInt8, opcode: HCIOpcode, returnParameters: ArraySlice<UInt8>) {
            self.numHCICommandPackets = numHCICommandPackets
            self.opcode = opcode
            self.returnParameters = returnParameters
        }

        /// The first return parameter, nil when there is none (the 0x0000 no-op opcode).
        public var status: HCIStatus? { returnParameters.first.map(HCIStatus.init(rawValue:)) }
    }

    /// Command Status (0x0F).
    public struct CommandStatus: Equatable, Sendable {
        /// Whether the controller accepted the command for execution.
        public var status: HCIStatus
        /// How many more commands the controller accepts now.
        public var numHCICommandPackets: UInt8
        /// The command this answers.
        public var opcode: HCIOpcode

        /// A Command Status as a controller would send it.
        public init(status: HCIStatus, numHCICommandPackets: UInt8, opcode: HCIOpcode) {
            self.status = status
            self.numHCICommandPackets = numHCICommandPackets
            self.opcode = opcode
        }
    }

    /// Disconnection Complete (0x05).
    public struct DisconnectionComplete: Equatable, Sendable {
        /// Whether the disconnection succeeded.
        public var status: HCIStatus
        /// The 12-bit handle; the upper four (reserved) bits are kept as received.
        public var connectionHandle: UInt16
        /// Why the connection ended.
        public var reason: HCIStatus

        /// A Disconnection Complete as a controller would send it.
        public init(status: HCIStatus, connectionHandle: UInt16, reason: HCIStatus) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.reason = reason
        }
    }

    static let disconnectionCompleteCode: UInt8 = 0x05
    static let commandCompleteCode: UInt8 = 0x0E
    static let commandStatusCode: UInt8 = 0x0F

    /// Decodes one framed event packet. Offsets in errors count from the event code.
    public init(_ packet: HCIEventPacket) throws(DecodeError) {
        do {
            try self.init(code: packet.code, parameters: packet.parameters)
        } catch {
            throw error.shifted(by: 2)
        }
    }

    /// Decodes `code | length | parameters` (no H4 indicator); the length byte must match.
    public init(packet bytes: ArraySlice<UInt8>) throws(DecodeError) {
        let start = bytes.startIndex
        guard bytes.count >= 2 else {
            throw DecodeError(offset: bytes.count, "truncated event header: need 2 bytes, have \(bytes.count)", kind: .truncated)
        }
        let declared = Int(bytes[start + 1])
        guard declared == bytes.count - 2 else {
            throw Self.parameterLengthMismatch(declared: declared, present: bytes.count - 2, at: 1)
        }
        try self.init(HCIEventPacket(unchecked: bytes[start], parameters: bytes[(start + 2)...]))
    }

    /// Decodes an event from its code and parameters. Offsets in errors count from the first parameter.
    public init(code: UInt8, parameters: ArraySlice<UInt8>) throws(DecodeError) {
        var reader = ByteReader(parameters)
        switch code {
        case Self.commandCompleteCode:
            let credits = try reader.u8("Num_HCI_Command_Packets")
            let opcode = try reader.u16le("Command_Opcode")
            self = .commandComplete(CommandComplete(numHCICommandPackets: credits, opcode: HCIOpcode(rawValue: opcode),
                                                    returnParameters: reader.rest()))
        case Self.commandStatusCode:
            let status = try reader.u8("Status")
            let credits = try reader.u8("Num_HCI_Command_Packets")
            let opcode = try reader.u16le("Command_Opcode")
            try reader.expectEnd("Command Status parameters")
            self = .commandStatus(CommandStatus(status: HCIStatus(rawValue: status), numHCICommandPackets: credits,
                                                opcode: HCIOpcode(rawValue: opcode)))
        case Self.disconnectionCompleteCode:
            let status = try reader.u8("Status")
            let handle = try reader.u16le("Connection_Handle")
            let reason = try reader.u8("Reason")
            try reader.expectEnd("Disconnection Complete parameters")
            self = .disconnectionComplete(DisconnectionComplete(status: HCIStatus(rawValue: status),
                                                                connectionHandle: handle,
                                                                reason: HCIStatus(rawValue: reason)))
        case Self.leMetaCode:
            self = try Self.decodeLEMeta(parameters)
        default:
            self = .unknown(code: code, parameters: parameters)
        }
    }

    static func decodeLEMeta(_ parameters: ArraySlice<UInt8>) throws(DecodeError) -> HCIEvent {
        guard let subevent = parameters.first else {
            throw DecodeError(offset: 0, "LE Meta event without a subevent code", kind: .truncated)
        }
        switch subevent {
        case legacyAdvertisingReportSubevent, extendedAdvertisingReportSubevent:
            var reports: [AdvertisingReport] = []
            reports.reserveCapacity(Int(parameters.dropFirst().first ?? 0))
            if let error = forEachAdvertisingReport(leMetaParameters: parameters, offsetBase: 0, { reports.append($0) }) {
                throw error
            }
            return subevent == legacyAdvertisingReportSubevent ? .leAdvertisingReport(reports) : .leExtendedAdvertisingReport(reports)
        default:
            return .unknownLEMeta(subevent: subevent, parameters: parameters.dropFirst())
        }
    }

    /// The event code this event is carried in.
    public var code: UInt8 {
        switch self {
        case .commandComplete: Self.commandCompleteCode
        case .commandStatus: Self.commandStatusCode
        case .disconnectionComplete: Self.disconnectionCompleteCode
        case .leAdvertisingReport, .leExtendedAdvertisingReport, .unknownLEMeta: Self.leMetaCode
        case .unknown(let code, _): code
        }
    }

    /// The advertising reports this event carries, if any.
    public var advertisingReports: [AdvertisingReport] {
        switch self {
        case .leAdvertisingReport(let reports), .leExtendedAdvertisingReport(let reports): reports
        default: []
        }
    }
}
