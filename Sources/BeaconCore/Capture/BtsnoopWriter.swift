/// Builds a btsnoop file in memory (tests, fixtures, and recording a live session).
public struct BtsnoopWriter: Sendable {
    /// The datalink written in the header.
    public let datalink: BtsnoopDatalink
    /// The file so far: header plus every appended record.
    public private(set) var bytes: [UInt8]

    /// A file with just its header:
    ///
    /// ```swift
    /// var writer = BtsnoopWriter()
    /// writer.append(.event(packet), direction: .received, unixMicroseconds: now)
    /// try Data(writer.bytes).write(to: url)
    /// ```
    public init(datalink: BtsnoopDatalink = .hciUART) {
        self.datalink = datalink
        bytes = Btsnoop.magic
        bytes.appendBE32(Btsnoop.version)
        bytes.appendBE32(datalink.rawValue)
    }

    /// The flags a packet of `type` travelling in `direction` gets.
    public static func flags(for type: HCIPacketType, direction: BtsnoopDirection) -> UInt32 {
        var flags: UInt32 = direction == .received ? Btsnoop.receivedFlag : 0
        if type == .command || type == .event { flags |= Btsnoop.commandOrEventFlag }
        return flags
    }

    /// Appends `packet`, with its indicator byte for H4 captures and without for H1 ones.
    public mutating func append(_ packet: H4Packet, direction: BtsnoopDirection, unixMicroseconds: Int64,
                                cumulativeDrops: UInt32 = 0) {
        let data = datalink == .hciUART ? packet.encode() : packet.encodeWithoutIndicator()
        appendRecord(data: data, flags: Self.flags(for: packet.type, direction: direction),
                     cumulativeDrops: cumulativeDrops, timestamp: unixMicroseconds &+ Btsnoop.unixEpochOffset)
    }

    /// Appends a record exactly as given; `originalLength` defaults to the data's length.
    /// `timestamp` is in btsnoop's epoch (see `Btsnoop.unixEpochOffset`).
    public mutating func appendRecord(data: some Collection<UInt8>, originalLength: UInt32? = nil, flags: UInt32,
                                      cumulativeDrops: UInt32 = 0, timestamp: Int64) {
        bytes.appendBE32(originalLength ?? UInt32(truncatingIfNeeded: data.count))
        bytes.appendBE32(UInt32(truncatingIfNeeded: data.count))
        bytes.appendBE32(flags)
        bytes.appendBE32(cumulativeDrops)
        bytes.appendBE32(UInt32(truncatingIfNeeded: UInt64(bitPattern: timestamp) >> 32))
        bytes.appendBE32(UInt32(truncatingIfNeeded: UInt64(bitPattern: timestamp)))
        bytes.append(contentsOf: data)
    }
}

extension Array where Element == UInt8 {
    mutating func appendBE32(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
