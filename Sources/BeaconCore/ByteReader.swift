/// Why a byte sequence could not be decoded. Decoders return this instead of trapping,
/// whatever the bytes: `offset` is where in the input the problem was found.
public struct DecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public init(offset: Int, _ reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "byte \(offset): \(reason)" }
}

/// A bounds-checked cursor over bytes. Every read either succeeds or throws `DecodeError`,
/// so decoders built on it cannot index out of range.
public struct ByteReader<Bytes: RandomAccessCollection<UInt8>> where Bytes.Index == Int {
    public let bytes: Bytes
    public private(set) var position: Int

    public init(_ bytes: Bytes) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    public var remaining: Int { bytes.endIndex - position }
    public var isAtEnd: Bool { position >= bytes.endIndex }
    /// Offset from the start of the input, for error messages.
    public var offset: Int { position - bytes.startIndex }

    public mutating func u8(_ what: @autoclosure () -> String = "byte") throws(DecodeError) -> UInt8 {
        guard position < bytes.endIndex else { throw DecodeError(offset: offset, "truncated \(what())") }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func u16le(_ what: @autoclosure () -> String = "uint16") throws(DecodeError) -> UInt16 {
        let s = try take(2, what())
        return UInt16(s[s.startIndex]) | UInt16(s[s.startIndex + 1]) << 8
    }

    public mutating func u16be(_ what: @autoclosure () -> String = "uint16") throws(DecodeError) -> UInt16 {
        let s = try take(2, what())
        return UInt16(s[s.startIndex]) << 8 | UInt16(s[s.startIndex + 1])
    }

    public mutating func u24le(_ what: @autoclosure () -> String = "uint24") throws(DecodeError) -> UInt32 {
        let s = try take(3, what())
        return UInt32(s[s.startIndex]) | UInt32(s[s.startIndex + 1]) << 8 | UInt32(s[s.startIndex + 2]) << 16
    }

    public mutating func u32le(_ what: @autoclosure () -> String = "uint32") throws(DecodeError) -> UInt32 {
        let s = try take(4, what())
        var v: UInt32 = 0
        for i in (0..<4).reversed() { v = v << 8 | UInt32(s[s.startIndex + i]) }
        return v
    }

    public mutating func u32be(_ what: @autoclosure () -> String = "uint32") throws(DecodeError) -> UInt32 {
        let s = try take(4, what())
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(s[s.startIndex + i]) }
        return v
    }

    public mutating func u64be(_ what: @autoclosure () -> String = "uint64") throws(DecodeError) -> UInt64 {
        let s = try take(8, what())
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(s[s.startIndex + i]) }
        return v
    }

    public mutating func take(_ count: Int, _ what: @autoclosure () -> String = "field") throws(DecodeError) -> Bytes.SubSequence {
        guard count >= 0, count <= remaining else {
            throw DecodeError(offset: offset, "truncated \(what()): need \(count) bytes, have \(remaining)")
        }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    public mutating func rest() -> Bytes.SubSequence {
        defer { position = bytes.endIndex }
        return bytes[position..<bytes.endIndex]
    }
}
