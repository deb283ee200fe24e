/// Splits an H4 byte stream (UART, TCP or unix socket to a controller) into HCI packets.
///
/// Reads arrive in arbitrary pieces: a packet may span several chunks and one chunk may hold
/// several packets. `push` keeps the incomplete tail and returns every packet completed so far.
///
/// H4 has no sync marker, so after a byte that is not a packet indicator the reassembler
/// reports one `.unknownPacketType` error and skips bytes until the next one that is. That
/// recovers from garbage between packets; a stray byte that happens to look like an indicator
/// can still cost the packets its bogus length swallows, which no H4 reader can avoid.
/// Restricting `acceptedTypes` (a host never receives commands) makes false starts rarer.
public struct H4Reassembler: Sendable {
    private var buffer: [UInt8] = []
    /// Stream offset of `buffer[0]`: bytes already returned as packets or skipped.
    public private(set) var consumedByteCount = 0
    /// Bytes dropped while looking for a packet indicator.
    public private(set) var skippedByteCount = 0
    private var resyncing = false
    private let acceptedMask: UInt8

    /// `acceptedTypes`: indicators to treat as packets; any other byte is an unknown indicator.
    public init(acceptedTypes: Set<HCIPacketType> = Set(HCIPacketType.allCases)) {
        acceptedMask = acceptedTypes.reduce(0) { $0 | 1 << $1.rawValue }
    }

    /// Bytes held back because they do not yet form a whole packet.
    public var bufferedByteCount: Int { buffer.count }

    /// Appends `chunk` and returns, in stream order, each packet it completes and an error for
    /// each run of bytes that is not a packet. Error offsets count from the start of the stream.
    public mutating func push(_ chunk: some Sequence<UInt8>) -> [Result<H4Packet, DecodeError>] {
        var results: [Result<H4Packet, DecodeError>] = []
        let streamOffset = consumedByteCount
        push(Array(chunk)[...], onError: { results.append(.failure($0)) }) { bytes in
            // A copy per packet: the slice shares `buffer`, which the next append would then copy whole.
            do throws(DecodeError) {
                results.append(.success(try H4Packet(bytes: Array(bytes)[...])))
            } catch {
                // Unreachable while the framing here matches H4Packet's; kept so a future mismatch reports, not traps.
                results.append(.failure(error.shifted(by: streamOffset)))
            }
        }
        return results
    }

    /// The allocation-free form of `push(_:)` for the per-advertisement path: `frames` gets each
    /// complete packet's bytes, indicator first, sliced from the reassembler's buffer (valid
    /// only during the call); `onError` gets one error for each run of bytes that is not a packet.
    /// Concrete types, not generics, so callers in other modules get the specialised code.
    public mutating func push(_ chunk: ArraySlice<UInt8>, onError: (DecodeError) -> Void,
                              frames body: (ArraySlice<UInt8>) -> Void) {
        buffer.append(contentsOf: chunk)
        var i = 0
        let end = buffer.count
        while i < end {
            let indicator = buffer[i]
            guard let type = HCIPacketType(rawValue: indicator), acceptedMask & (1 << indicator) != 0 else {
                if !resyncing {
                    resyncing = true
                    onError(DecodeError(
                        offset: consumedByteCount + i,
                        "unknown H4 packet indicator 0x\(hex(indicator)); skipping to the next packet",
                        kind: .unknownPacketType(indicator)))
                }
                skippedByteCount += 1
                i += 1
                continue
            }
            guard i + 1 + type.headerLength <= end else { break }
            let total = 1 + type.headerLength + type.payloadLength(header: buffer[...], at: i + 1)
            guard i + total <= end else { break }
            body(buffer[i..<(i + total)])
            resyncing = false
            i += total
        }
        buffer.removeFirst(i)
        consumedByteCount += i
    }

    /// Ends the stream: returns a `.truncated` error if a partial packet was left, and clears it.
    public mutating func finish() -> DecodeError? {
        defer { reset() }
        guard let indicator = buffer.first, let type = HCIPacketType(rawValue: indicator) else { return nil }
        var expected = "at least \(1 + type.headerLength)"
        if buffer.count >= 1 + type.headerLength {
            expected = "\(1 + type.headerLength + type.payloadLength(header: buffer[...], at: 1))"
        }
        return DecodeError(offset: consumedByteCount,
                           "stream ended inside an H4 \(type) packet: \(buffer.count) of \(expected) bytes",
                           kind: .truncated)
    }

    /// Drops any partial packet and starts afresh (e.g. after reopening the transport).
    /// Stream offsets keep counting.
    public mutating func reset() {
        consumedByteCount += buffer.count
        buffer.removeAll(keepingCapacity: true)
        resyncing = false
    }
}
