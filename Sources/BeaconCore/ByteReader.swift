/// Why a byte sequence could not be decoded. Decoders return this instead of trapping,
/// whatever the bytes: `offset` is where in the input the problem was found.
public struct DecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The broad class of problem, for callers that react differently to each
    /// (a stream reader resyncs on `.unknownPacketType`, waits for more bytes on `.truncated`).
    public enum Kind: Equatable, Sendable {
        /// The input ended before a field or a length-prefixed region did.
        case truncated
        /// Bytes are left over after everything the length fields account for.
        case trailingBytes
        /// A field holds a value the format does not allow.
        case invalidValue
        /// An H4 packet indicator byte that names no HCI packet type.
        case unknownPacketType(UInt8)
    }

    /// What went wrong, broadly.
    public var kind: Kind
    /// Where in the input (bytes from its start).
    public var offset: Int
    /// What was expected there, for the person reading the error.
    public var reason: String

    /// An error at `offset`:
    ///
    /// ```swift
    /// throw DecodeError(offset: 3, "length 40 exceeds the 31-byte AD field", kind: .invalidValue)
    /// ```
    public init(offset: Int, _ reason: String, kind: Kind = .invalidValue) {
        self.kind = kind
        self.offset = offset
        self.reason = reason
    }

    /// "byte 3: length 40 exceeds the 31-byte AD field".
    public var description: String { "byte \(offset): \(reason)" }

    /// The same error with `offset` moved by `base`, for errors found in a sub-range of a larger input.
    public func shifted(by base: Int) -> DecodeError {
        DecodeError(offset: offset + base, reason, kind: kind)
    }
}

/// A bounds-checked cursor over bytes. Every read either succeeds or throws `DecodeError`,
/// so decoders built on it cannot index out of range.
public struct ByteReader<Bytes: RandomAccessCollection<UInt8>> where Bytes.Index == Int {
    /// The whole input; reads move `position` through it.
    public let bytes: Bytes
    public private(set) var position: Int

    /// A reader at the start of `bytes`:
    ///
    /// ```swift
    /// var reader = ByteReader(packet)
    /// let opcode = try reader.u16le("opcode")
    /// let parameters = try reader.take(Int(try reader.u8("length")), "parameters")
    /// ```
    public init(_ bytes: Bytes) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    /// Bytes not read yet.
    public var remaining: Int { bytes.endIndex - position }
    /// Whether everything has been read.
    public var isAtEnd: Bool { position >= bytes.endIndex }
    /// Offset from the start of the input, for error messages.
    public var offset: Int { position - bytes.startIndex }

    // Reads index the collection directly (after one bounds check) rather than going through
    // `take`, so fixed-width fields cost no slice and no retain.
    @inline(__always)
    func need(_ count: Int, _ what: () -> String) throws(DecodeError) {
        guard count <= remaining else {
            throw DecodeError(offset: offset, "truncated \(what()): need \(count) bytes, have \(remaining)", kind: .truncated)
        }
    }

    /// One byte; `what` names the field in a truncation error.
    public mutating func u8(_ what: @autoclosure () -> String = "byte") throws(DecodeError) -> UInt8 {
        try need(1, what)
        defer { position += 1 }
        return bytes[position]
    }

    /// One byte as a signed value (RSSI, TX power).
    public mutating func i8(_ what: @autoclosure () -> String = "int8") throws(DecodeError) -> Int8 {
        Int8(bitPattern: try u8(what()))
    }

    /// Two bytes, little-endian (HCI's order).
    public mutating func u16le(_ what: @autoclosure () -> String = "uint16") throws(DecodeError) -> UInt16 {
        try need(2, what)
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    /// Two bytes, big-endian (iBeacon major and minor).
    public mutating func u16be(_ what: @autoclosure () -> String = "uint16") throws(DecodeError) -> UInt16 {
        try need(2, what)
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    /// Three bytes, little-endian (extended advertising intervals).
    public mutating func u24le(_ what: @autoclosure () -> String = "uint24") throws(DecodeError) -> UInt32 {
        try need(3, what)
        defer { position += 3 }
        return UInt32(bytes[position]) | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2]) << 16
    }

    /// Four bytes, little-endian.
    public mutating func u32le(_ what: @autoclosure () -> String = "uint32") throws(DecodeError) -> UInt32 {
        try need(4, what)
        defer { position += 4 }
        var v: UInt32 = 0
        for i in (0..<4).reversed() { v = v << 8 | UInt32(bytes[position + i]) }
        return v
    }

    /// Four bytes, big-endian (btsnoop's header and record lengths).
    public mutating func u32be(_ what: @autoclosure () -> String = "uint32") throws(DecodeError) -> UInt32 {
        try need(4, what)
        defer { position += 4 }
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(bytes[position + i]) }
        return v
    }

    /// Eight bytes, little-endian.
    public mutating func u64le(_ what: @autoclosure () -> String = "uint64") throws(DecodeError) -> UInt64 {
        try need(8, what)
        defer { position += 8 }
        var v: UInt64 = 0
        for i in (0..<8).reversed() { v = v << 8 | UInt64(bytes[position + i]) }
        return v
    }

    /// Eight bytes, big-endian (btsnoop timestamps).
    public mutating func u64be(_ what: @autoclosure () -> String = "uint64") throws(DecodeError) -> UInt64 {
        try need(8, what)
        defer { position += 8 }
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[position + i]) }
        return v
    }

    /// The next `count` bytes as a slice of the input (no copy); throws `.truncated` when fewer remain.
    public mutating func take(_ count: Int, _ what: @autoclosure () -> String = "field") throws(DecodeError) -> Bytes.SubSequence {
        guard count >= 0 else {
            throw DecodeError(offset: offset, "negative length \(count) for \(what())")
        }
        try need(count, what)
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// Everything not read yet; the reader is then at the end.
    public mutating func rest() -> Bytes.SubSequence {
        defer { position = bytes.endIndex }
        return bytes[position..<bytes.endIndex]
    }

    /// Throws `.trailingBytes` unless every byte has been read: for formats whose length
    /// fields must account for the whole input.
    public func expectEnd(_ what: @autoclosure () -> String = "structure") throws(DecodeError) {
        guard isAtEnd else {
            throw DecodeError(offset: offset, "\(remaining) unexpected bytes after \(what())", kind: .trailingBytes)
        }
    }
}
