import Foundation

/// 16-bit PCM RIFF/WAVE: the header `WAVFileSink` writes, and a decoder for tests and tools
/// that read the result back. The decoder never traps: every problem is a `WAVError`.
public struct WAVFile: Equatable, Sendable {
    public var sampleRate: Int
    public var channels: Int
    public var samples: [Int16]

    public init(sampleRate: Int = AudioFormat.sampleRate, channels: Int = AudioFormat.channels, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    public var duration: Double { Double(samples.count) / Double(sampleRate * channels) }

    static let headerSize = 44

    /// The 44-byte canonical header for `dataBytes` bytes of mono 16-bit PCM.
    static func header(dataBytes: UInt32, sampleRate: Int = AudioFormat.sampleRate, channels: Int = AudioFormat.channels) -> [UInt8] {
        let blockAlign = channels * 2
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize)
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        bytes.append(contentsOf: Array("RIFF".utf8))
        u32(dataBytes &+ 36)
        bytes.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)  // PCM
        u16(UInt16(channels))
        u32(UInt32(sampleRate))
        u32(UInt32(sampleRate * blockAlign))
        u16(UInt16(blockAlign))
        u16(16)
        bytes.append(contentsOf: Array("data".utf8))
        u32(dataBytes)
        return bytes
    }

    public func encoded() -> Data {
        var data = Data(Self.header(dataBytes: UInt32(samples.count * 2), sampleRate: sampleRate, channels: channels))
        data.append(pcmBytes(samples))
        return data
    }

    /// Reads a 16-bit PCM WAV, skipping chunks other than `fmt ` and `data`.
    public static func decode(_ data: Data) throws(WAVError) -> WAVFile {
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else { throw .notWAV }
        let riffSize = Int(u32(4))
        guard riffSize + 8 == bytes.count else { throw .riffSizeMismatch(declared: riffSize + 8, actual: bytes.count) }
        var format: (rate: Int, channels: Int)?
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = tag(offset)
            let size = Int(u32(offset + 4))
            let body = offset + 8
            guard size <= bytes.count - body else { throw .truncatedChunk(id) }
            switch id {
            case "fmt ":
                guard size >= 16 else { throw .truncatedChunk(id) }
                guard u16(body) == 1, u16(body + 14) == 16 else { throw .unsupportedFormat(code: Int(u16(body)), bits: Int(u16(body + 14))) }
                format = (Int(u32(body + 4)), Int(u16(body + 2)))
            case "data":
                guard let format else { throw .dataBeforeFormat }
                guard size % 2 == 0 else { throw .truncatedChunk(id) }
                let samples = stride(from: body, to: body + size, by: 2).map { Int16(bitPattern: u16($0)) }
                return WAVFile(sampleRate: format.rate, channels: format.channels, samples: samples)
            default:
                break
            }
            offset = body + size + (size & 1)
        }
        throw .noData
    }
}

public enum WAVError: Error, Equatable, Sendable {
    case notWAV
    case riffSizeMismatch(declared: Int, actual: Int)
    case truncatedChunk(String)
    case unsupportedFormat(code: Int, bits: Int)
    case dataBeforeFormat
    case noData
}

/// Little-endian bytes of `samples`, as WAV and every player's s16le expects.
func pcmBytes(_ samples: [Int16]) -> Data {
    var data = Data(capacity: samples.count * 2)
    for sample in samples {
        withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) }
    }
    return data
}
