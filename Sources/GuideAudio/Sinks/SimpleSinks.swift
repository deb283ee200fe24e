import Foundation
import Synchronization

/// Why a sink could not be opened or written; the message names the file or program.
public struct AudioSinkError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Writes a WAV file. The header's sizes are placeholders until `close()` patches them, so an
/// unclosed file still holds every sample written.
public final class WAVFileSink: AudioSink {
    public let name: String
    private let handle: FileHandle
    private var dataBytes: UInt64 = 0
    private var closed = false

    public init(path: String) throws(AudioSinkError) {
        name = path
        guard FileManager.default.createFile(atPath: path, contents: Data(WAVFile.header(dataBytes: 0))),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw AudioSinkError("\(path): cannot create the WAV file")
        }
        self.handle = handle
        handle.seekToEndOfFile()
    }

    public func write(_ samples: [Int16]) throws {
        guard !closed else { throw AudioSinkError("\(name): written after close") }
        // RIFF sizes are 32-bit: refuse rather than write a header that lies (≈ 27 h of audio).
        guard dataBytes + UInt64(samples.count * 2) <= UInt64(UInt32.max - 36) else {
            throw AudioSinkError("\(name): WAV files cannot exceed 4 GiB")
        }
        do { try handle.write(contentsOf: pcmBytes(samples)) } catch {
            throw AudioSinkError("\(name): cannot write: \(error.localizedDescription)")
        }
        dataBytes += UInt64(samples.count * 2)
    }

    public func close() throws {
        guard !closed else { return }
        closed = true
        do {
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: Data(WAVFile.header(dataBytes: UInt32(dataBytes))))
            try handle.close()
        } catch {
            throw AudioSinkError("\(name): cannot finish the WAV header: \(error.localizedDescription)")
        }
    }
}

/// Raw s16le PCM on standard output (`--audio-out -`), e.g. for `| aplay -f S16_LE -r 22050`.
/// If the reader goes away the write fails (and the live player turns audio off, saying so)
/// instead of SIGPIPE ending the guide mid-walk.
public final class StandardOutputSink: AudioSink {
    public let name = "stdout"
    public init() { signal(SIGPIPE, SIG_IGN) }
    public func write(_ samples: [Int16]) throws {
        do { try FileHandle.standardOutput.write(contentsOf: pcmBytes(samples)) } catch {
            throw AudioSinkError("stdout: cannot write audio: \(error.localizedDescription)")
        }
    }
    public func close() throws {}
}

/// Discards audio (`--audio-out none`); cues are still scheduled and logged.
public final class NullSink: AudioSink {
    public let name = "none"
    public init() {}
    public func write(_ samples: [Int16]) throws {}
    public func close() throws {}
}

/// Keeps everything in memory, with the wall-clock time of each write: for tests and benchmarks.
/// Locked, so a test may read it while a `LiveCuePlayer` writes.
public final class MemorySink: AudioSink, Sendable {
    public let name = "memory"
    /// The samples, and (index of the write's first sample, when) for every write.
    private let state = Mutex<(stored: [Int16], writeLog: [(firstSample: Int, at: ContinuousClock.Instant)])>(([], []))

    public init() {}

    public var samples: [Int16] { state.withLock { $0.stored } }
    /// (index of the write's first sample, when it was written) for every write.
    public var writes: [(firstSample: Int, at: ContinuousClock.Instant)] { state.withLock { $0.writeLog } }

    public func write(_ samples: [Int16]) throws {
        state.withLock { state in
            state.writeLog.append((state.stored.count, ContinuousClock.now))
            state.stored.append(contentsOf: samples)
        }
    }

    public func close() throws {}

    /// When the write holding sample `index` happened; nil if not written yet.
    public func writeTime(ofSample index: Int) -> ContinuousClock.Instant? {
        state.withLock { state in
            guard index < state.stored.count else { return nil }
            return state.writeLog.last { $0.firstSample <= index }?.at
        }
    }
}
