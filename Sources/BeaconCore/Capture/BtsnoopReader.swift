/// Reads the records of a btsnoop file from its bytes, one at a time, so a caller can use
/// every good record before the first bad one.
///
/// ```swift
/// var reader = try BtsnoopReader(bytes: fileBytes)
/// while let record = try reader.next() { ... }
/// ```
public struct BtsnoopReader: Sendable {
    /// The file's datalink, from its header.
    public let datalink: BtsnoopDatalink
    private let bytes: [UInt8]
    /// File offset of the next record header.
    public private(set) var offset: Int
    /// Records returned so far.
    public private(set) var recordCount = 0
    private var failure: BtsnoopError?

    /// Checks the file header. Throws for a short header, bad magic, a version other than 1,
    /// or a datalink other than 1001/1002.
    public init(bytes: [UInt8]) throws(BtsnoopError) {
        guard bytes.count >= Btsnoop.fileHeaderLength else {
            // Wrong magic is the more useful message when the few bytes present already disagree.
            if !bytes.prefix(Btsnoop.magic.count).elementsEqual(Btsnoop.magic.prefix(bytes.count)) {
                throw BtsnoopError(.badMagic, recordNumber: nil, offset: 0)
            }
            throw BtsnoopError(.truncatedFileHeader(bytes: bytes.count), recordNumber: nil, offset: 0)
        }
        guard bytes[0..<8].elementsEqual(Btsnoop.magic) else {
            throw BtsnoopError(.badMagic, recordNumber: nil, offset: 0)
        }
        let version = Self.readU32BE(bytes, at: 8)
        guard version == Btsnoop.version else {
            throw BtsnoopError(.unsupportedVersion(version), recordNumber: nil, offset: 8)
        }
        let link = Self.readU32BE(bytes, at: 12)
        guard let datalink = BtsnoopDatalink(rawValue: link) else {
            throw BtsnoopError(.unsupportedDatalink(link), recordNumber: nil, offset: 12)
        }
        self.bytes = bytes
        self.datalink = datalink
        offset = Btsnoop.fileHeaderLength
    }

    /// The next record, nil at a clean end of file. After an error every further call
    /// throws the same error.
    public mutating func next() throws(BtsnoopError) -> BtsnoopRecord? {
        if let failure { throw failure }
        let left = bytes.count - offset
        guard left > 0 else { return nil }
        let number = recordCount + 1
        func fail(_ reason: BtsnoopError.Reason) -> BtsnoopError {
            let error = BtsnoopError(reason, recordNumber: number, offset: offset)
            failure = error
            return error
        }
        guard left >= Btsnoop.recordHeaderLength else { throw fail(.truncatedRecordHeader(bytesLeft: left)) }
        let original = Self.readU32BE(bytes, at: offset)
        let included = Self.readU32BE(bytes, at: offset + 4)
        let flags = Self.readU32BE(bytes, at: offset + 8)
        let drops = Self.readU32BE(bytes, at: offset + 12)
        let timestamp = Int64(bitPattern: UInt64(Self.readU32BE(bytes, at: offset + 16)) << 32 | UInt64(Self.readU32BE(bytes, at: offset + 20)))
        guard included <= original else { throw fail(.includedLengthExceedsOriginal(included: included, original: original)) }
        let dataStart = offset + Btsnoop.recordHeaderLength
        let dataLeft = bytes.count - dataStart
        guard Int(included) <= dataLeft else { throw fail(.truncatedRecord(includedLength: included, bytesLeft: dataLeft)) }
        let record = BtsnoopRecord(number: number, fileOffset: offset, datalink: datalink, originalLength: original,
                                   flags: flags, cumulativeDrops: drops, timestamp: timestamp,
                                   data: bytes[dataStart..<(dataStart + Int(included))])
        offset = dataStart + Int(included)
        recordCount = number
        return record
    }

    /// Every record of a file, or the first error.
    public static func records(in bytes: [UInt8]) throws(BtsnoopError) -> [BtsnoopRecord] {
        var reader = try BtsnoopReader(bytes: bytes)
        var records: [BtsnoopRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    private static func readU32BE(_ bytes: [UInt8], at i: Int) -> UInt32 {
        UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
    }
}
