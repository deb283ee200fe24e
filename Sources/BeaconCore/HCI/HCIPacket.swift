/// The HCI packet types and their H4 indicator bytes (Core Spec Vol 4 Part A §2).
public enum HCIPacketType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// A command, host to controller.
    case command = 0x01
    /// ACL data.
    case acl = 0x02
    /// SCO (synchronous voice) data.
    case sco = 0x03
    /// An event, controller to host.
    case event = 0x04
    /// ISO (isochronous) data.
    case iso = 0x05

    /// Header bytes after the indicator and before the payload.
    public var headerLength: Int {
        switch self {
        case .command, .sco: 3
        case .event: 2
        case .acl, .iso: 4
        }
    }

    /// The largest payload the header's length field can describe.
    public var maximumPayloadLength: Int {
        switch self {
        case .command, .event, .sco: 0xFF
        case .acl: 0xFFFF
        case .iso: 0x3FFF
        }
    }

    /// The payload length a complete header announces. `header` must hold at least
    /// `headerLength` bytes from `start`.
    func payloadLength(header: ArraySlice<UInt8>, at start: Int) -> Int {
        switch self {
        case .command: Int(header[start + 2])
        case .event: Int(header[start + 1])
        case .sco: Int(header[start + 2])
        case .acl: Int(header[start + 2]) | Int(header[start + 3]) << 8
        // The top two bits of the ISO length field are reserved for future use.
        case .iso: (Int(header[start + 2]) | Int(header[start + 3]) << 8) & 0x3FFF
        }
    }

    /// "command", "event", "ACL", "SCO" or "ISO".
    public var description: String {
        switch self {
        case .command: "command"
        case .acl: "ACL"
        case .sco: "SCO"
        case .event: "event"
        case .iso: "ISO"
        }
    }
}

/// An HCI event packet as framed: event code and parameters, not yet interpreted.
/// `HCIEvent(_:)` turns it into a typed event.
public struct HCIEventPacket: Equatable, Sendable {
    /// The event code (0x0E Command Complete, 0x3E LE Meta, …).
    public let code: UInt8
    /// The event's parameters as received, at most 255 bytes.
    public let parameters: ArraySlice<UInt8>

    /// Fails when the parameters do not fit the one-byte length field.
    public init(code: UInt8, parameters: some Collection<UInt8>) throws(EncodeError) {
        guard parameters.count <= 0xFF else {
            throw EncodeError.tooLong(field: "event parameters", count: parameters.count, maximum: 0xFF)
        }
        self.init(unchecked: code, parameters: ArraySlice(parameters))
    }

    init(unchecked code: UInt8, parameters: ArraySlice<UInt8>) {
        self.code = code
        self.parameters = parameters
    }

    /// `code | length | parameters`, without the H4 indicator.
    public func encode() -> [UInt8] {
        var out: [UInt8] = [code, UInt8(truncatingIfNeeded: parameters.count)]
        out.append(contentsOf: parameters)
        return out
    }
}

/// An ACL, SCO or ISO data packet: connection handle, the four flag bits beside it, payload.
/// RideBeacon never looks inside these; they are framed so captures and H4 streams parse whole.
public struct HCIDataPacket: Equatable, Sendable {
    /// `.acl`, `.sco` or `.iso`.
    public let type: HCIPacketType
    /// 12-bit connection handle.
    public let handle: UInt16
    /// The four bits above the handle (ACL: packet boundary and broadcast flags;
    /// SCO: packet status; ISO: packet boundary and timestamp flags).
    public let flags: UInt8
    /// The data, uninterpreted.
    public let payload: ArraySlice<UInt8>

    /// Fails for a non-data `type`, a handle or flags out of range, or a payload too long for the header.
    public init(type: HCIPacketType, handle: UInt16, flags: UInt8, payload: some Collection<UInt8>) throws(EncodeError) {
        guard type == .acl || type == .sco || type == .iso else {
            throw EncodeError.invalidCombination("\(type) packets are not data packets")
        }
        guard handle <= 0x0FFF else { throw EncodeError.outOfRange(field: "handle", value: Int(handle), allowed: 0...0x0FFF) }
        guard flags <= 0x0F else { throw EncodeError.outOfRange(field: "flags", value: Int(flags), allowed: 0...0x0F) }
        guard payload.count <= type.maximumPayloadLength else {
            throw EncodeError.tooLong(field: "\(type) payload", count: payload.count, maximum: type.maximumPayloadLength)
        }
        self.init(unchecked: type, handle: handle, flags: flags, payload: ArraySlice(payload))
    }

    init(unchecked type: HCIPacketType, handle: UInt16, flags: UInt8, payload: ArraySlice<UInt8>) {
        self.type = type
        self.handle = handle
        self.flags = flags
        self.payload = payload
    }

    /// Header and payload, without the H4 indicator.
    public func encode() -> [UInt8] {
        let handleAndFlags = handle | UInt16(flags) << 12
        var out: [UInt8] = [UInt8(truncatingIfNeeded: handleAndFlags), UInt8(truncatingIfNeeded: handleAndFlags >> 8)]
        out.reserveCapacity(type.headerLength + payload.count)
        out.append(UInt8(truncatingIfNeeded: payload.count))
        if type != .sco { out.append(UInt8(truncatingIfNeeded: payload.count >> 8)) }
        out.append(contentsOf: payload)
        return out
    }
}

/// One HCI packet of any type, as carried over H4 (UART, TCP or a socket to a virtual controller).
public enum H4Packet: Equatable, Sendable {
    /// A command packet.
    case command(HCICommand)
    /// An event packet.
    case event(HCIEventPacket)
    /// ACL, SCO or ISO; `HCIDataPacket.type` says which.
    case data(HCIDataPacket)

    /// The H4 indicator's packet type.
    public var type: HCIPacketType {
        switch self {
        case .command: .command
        case .event: .event
        case .data(let packet): packet.type
        }
    }

    /// Indicator byte, header and payload.
    public func encode() -> [UInt8] {
        [type.rawValue] + encodeWithoutIndicator()
    }

    /// Header and payload only, as btsnoop datalink 1001 and raw HCI sockets carry packets.
    public func encodeWithoutIndicator() -> [UInt8] {
        switch self {
        case .command(let command): command.encode()
        case .event(let event): event.encode()
        case .data(let data): data.encode()
        }
    }

    /// Decodes exactly one packet that starts with its H4 indicator byte.
    /// Errors are `.unknownPacketType`, `.truncated` or `.trailingBytes`; offsets count from `bytes.startIndex`.
    public init(bytes: ArraySlice<UInt8>) throws(DecodeError) {
        guard let indicator = bytes.first else {
            throw DecodeError(offset: 0, "empty H4 packet: missing packet indicator", kind: .truncated)
        }
        guard let type = HCIPacketType(rawValue: indicator) else {
            throw DecodeError(offset: 0, "unknown H4 packet indicator 0x\(hex(indicator))", kind: .unknownPacketType(indicator))
        }
        do {
            try self.init(type: type, body: bytes.dropFirst())
        } catch {
            throw error.shifted(by: 1)
        }
    }

    /// Decodes the header and payload of a packet whose type is known from elsewhere
    /// (btsnoop datalink 1001 flags, a raw HCI socket). The header's length field must
    /// match the bytes given exactly.
    public init(type: HCIPacketType, body: ArraySlice<UInt8>) throws(DecodeError) {
        let start = body.startIndex
        guard body.count >= type.headerLength else {
            throw DecodeError(offset: body.count, "truncated \(type) header: need \(type.headerLength) bytes, have \(body.count)", kind: .truncated)
        }
        let payloadLength = type.payloadLength(header: body, at: start)
        let payloadStart = start + type.headerLength
        let available = body.endIndex - payloadStart
        guard available >= payloadLength else {
            throw DecodeError(offset: type.headerLength, "truncated \(type) payload: length field says \(payloadLength), \(available) bytes present", kind: .truncated)
        }
        guard available == payloadLength else {
            throw DecodeError(offset: type.headerLength + payloadLength, "\(available - payloadLength) bytes after the \(type) payload its length field announces", kind: .trailingBytes)
        }
        let payload = body[payloadStart...]
        switch type {
        case .command:
            let opcode = UInt16(body[start]) | UInt16(body[start + 1]) << 8
            self = .command(HCICommand(unchecked: HCIOpcode(rawValue: opcode), parameters: payload))
        case .event:
            self = .event(HCIEventPacket(unchecked: body[start], parameters: payload))
        case .acl, .sco, .iso:
            let handleAndFlags = UInt16(body[start]) | UInt16(body[start + 1]) << 8
            self = .data(HCIDataPacket(unchecked: type, handle: handleAndFlags & 0x0FFF,
                                       flags: UInt8(handleAndFlags >> 12), payload: payload))
        }
    }
}

/// Two upper-case hex digits, for messages.
func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
}

/// Four upper-case hex digits, for messages.
func hex(_ value: UInt16) -> String {
    hex(UInt8(value >> 8)) + hex(UInt8(value & 0xFF))
}
