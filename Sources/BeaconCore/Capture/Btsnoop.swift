// btsnoop version 1 captures (RFC 1761 "snoop" layout, as written by Android, BlueZ's
// btmon -w and Bumble): a 16-byte file header, then records of a 24-byte big-endian header
// and the packet bytes. Decoding only; BeaconCore does no I/O, callers pass the file's bytes.

/// How packets are stored in a btsnoop file.
public enum BtsnoopDatalink: UInt32, Sendable, CaseIterable {
    /// Un-encapsulated HCI ("H1"): no indicator byte; the record flags say command/event/data.
    case hciUnencapsulated = 1001
    /// HCI UART ("H4"): every packet starts with its H4 indicator byte.
    case hciUART = 1002
}

/// Which way a packet travelled.
public enum BtsnoopDirection: Sendable, Equatable {
    /// Host to controller (commands, outgoing data).
    case sent
    /// Controller to host (events, incoming data).
    case received
}

/// Constants of the format.
public enum Btsnoop {
    /// The file's first eight bytes.
    public static let magic: [UInt8] = Array("btsnoop\0".utf8)
    /// The only version there is.
    public static let version: UInt32 = 1
    /// Magic, version and datalink.
    public static let fileHeaderLength = 16
    /// Lengths, flags, drops and timestamp before each record's bytes.
    public static let recordHeaderLength = 24
    /// Microseconds from btsnoop's epoch (midnight, January 1st, year 0) to the Unix epoch.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// Record flag bit 0: set when the controller sent the packet.
    public static let receivedFlag: UInt32 = 1 << 0
    /// Record flag bit 1: set for commands and events, clear for data packets.
    public static let commandOrEventFlag: UInt32 = 1 << 1
}

/// One record of a btsnoop file.
public struct BtsnoopRecord: Equatable, Sendable {
    /// 1-based position in the file, as Wireshark numbers frames.
    public var number: Int
    /// Byte offset of the record header in the file.
    public var fileOffset: Int
    /// How the file frames packets (H4 with indicators, or the monitor format).
    public var datalink: BtsnoopDatalink
    /// The packet's length before any capture truncation.
    public var originalLength: UInt32
    /// Direction and packet class bits (`Btsnoop.receivedFlag`, `.commandOrEventFlag`).
    public var flags: UInt32
    /// Packets the capturer lost before this one.
    public var cumulativeDrops: UInt32
    /// Microseconds since midnight, January 1st, year 0 (btsnoop's epoch).
    public var timestamp: Int64
    /// The captured bytes (`included length` of them), slicing the file's bytes.
    public var data: ArraySlice<UInt8>

    /// Sent by the host or received from the controller.
    public var direction: BtsnoopDirection { flags & Btsnoop.receivedFlag == 0 ? .sent : .received }
    /// A command or event, not a data packet.
    public var isCommandOrEvent: Bool { flags & Btsnoop.commandOrEventFlag != 0 }
    /// True when the capture kept fewer bytes than the packet had.
    public var isTruncated: Bool { data.count < Int(originalLength) }
    /// Microseconds since the Unix epoch; exact, unlike `unixSeconds`.
    public var unixMicroseconds: Int64 { timestamp &- Btsnoop.unixEpochOffset }
    /// Seconds since the Unix epoch.
    public var unixSeconds: Double { Double(unixMicroseconds) / 1_000_000 }

    /// The HCI packet type: the indicator byte for H4 captures, the flags for H1 ones
    /// (where SCO cannot be told from ACL and is reported as ACL).
    public var packetType: HCIPacketType? {
        switch datalink {
        case .hciUART:
            return data.first.flatMap(HCIPacketType.init(rawValue:))
        case .hciUnencapsulated:
            guard isCommandOrEvent else { return .acl }
            return direction == .sent ? .command : .event
        }
    }

    /// Decodes the captured bytes as one HCI packet. Offsets in errors count from the record's data.
    public func packet() throws(DecodeError) -> H4Packet {
        switch datalink {
        case .hciUART:
            return try H4Packet(bytes: data)
        case .hciUnencapsulated:
            guard let type = packetType else { throw DecodeError(offset: 0, "no packet type") }
            return try H4Packet(type: type, body: data)
        }
    }
}

/// A btsnoop file that cannot be read further: what is wrong, and where.
public struct BtsnoopError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the file.
    public enum Reason: Equatable, Sendable {
        /// The file is shorter than its 16-byte header.
        case truncatedFileHeader(bytes: Int)
        /// It does not start with "btsnoop\0".
        case badMagic
        /// A version other than 1.
        case unsupportedVersion(UInt32)
        /// A datalink other than H1, H4 (UART) or the Linux monitor.
        case unsupportedDatalink(UInt32)
        /// The file ends inside a record's 24-byte header.
        case truncatedRecordHeader(bytesLeft: Int)
        /// The file ends inside a record's bytes.
        case truncatedRecord(includedLength: UInt32, bytesLeft: Int)
        /// A record claims more bytes captured than the packet had.
        case includedLengthExceedsOriginal(included: UInt32, original: UInt32)
    }

    /// What is wrong.
    public var reason: Reason
    /// 1-based number of the bad record; nil when the file header is at fault.
    public var recordNumber: Int?
    /// Byte offset in the file: of the bad record's header, or of the bad file-header field.
    public var offset: Int

    /// An error for `reason` at `offset` (in record `recordNumber`, or the file header when nil).
    public init(_ reason: Reason, recordNumber: Int?, offset: Int) {
        self.reason = reason
        self.recordNumber = recordNumber
        self.offset = offset
    }

    /// `record 17 at byte 4821: truncated record (included length 40, 12 bytes left)`.
    public var description: String {
        let place = recordNumber.map { "record \($0) at byte \(offset)" } ?? "byte \(offset)"
        return "\(place): \(reasonDescription)"
    }

    /// The reason alone, in words (without the place).
    public var reasonDescription: String {
        switch reason {
        case .truncatedFileHeader(let bytes):
            "truncated file header (\(bytes) of \(Btsnoop.fileHeaderLength) bytes)"
        case .badMagic:
            "not a btsnoop file (bad magic)"
        case .unsupportedVersion(let version):
            "unsupported btsnoop version \(version) (only \(Btsnoop.version) is supported)"
        case .unsupportedDatalink(let datalink):
            "unsupported datalink \(datalink) (supported: 1001 HCI un-encapsulated, 1002 HCI UART)"
        case .truncatedRecordHeader(let left):
            "truncated record header (\(left) of \(Btsnoop.recordHeaderLength) bytes)"
        case let .truncatedRecord(included, left):
            "truncated record (included length \(included), \(left) bytes left)"
        case let .includedLengthExceedsOriginal(included, original):
            "included length \(included) exceeds original length \(original)"
        }
    }
}
