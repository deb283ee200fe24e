import Foundation

/// Where the voice commands are heard from: the microphone (PipeWire, PulseAudio or ALSA, through
/// the first of their recorders installed: pw-record, parec, arecord), or a file (a WAV of any
/// rate, or raw 16 kHz mono s16le PCM; tests and `--voice-input`).
public enum VoiceInput: Sendable, Equatable {
    case microphone
    case file(String)

    /// The recorders tried for the microphone, in order, each asked for 16 kHz mono s16le on
    /// standard output.
    public static let recorders: [(name: String, arguments: [String])] = [
        ("pw-record", ["--rate", "16000", "--channels", "1", "--format", "s16", "-"]),
        ("parec", ["--raw", "--format=s16le", "--rate=16000", "--channels=1"]),
        ("arecord", ["-q", "-f", "S16_LE", "-r", "16000", "-c", "1", "-t", "raw"]),
    ]

    /// The first recorder on PATH, or nil.
    public static func recorder() -> (path: String, arguments: [String])? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for recorder in recorders {
            for directory in path.split(separator: ":") {
                let candidate = "\(directory)/\(recorder.name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return (candidate, recorder.arguments) }
            }
        }
        return nil
    }
}

/// Audio files as 16 kHz mono samples.
public enum VoiceAudio {
    /// Reads a WAV (PCM 16-bit, any rate and channel count) or raw 16 kHz mono s16le.
    public static func read(_ path: String) throws(VoiceError) -> [Int16] {
        guard let data = FileManager.default.contents(atPath: path) else { throw VoiceError("cannot read \(path)") }
        let bytes = [UInt8](data)
        guard bytes.count >= 12, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF",
              String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE" else {
            return samples(bytes[...])
        }
        var offset = 12
        var rate = 16_000
        var channels = 1
        var bits = 16
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Int(le32(bytes, offset + 4))
            let body = offset + 8
            if id == "fmt " {
                channels = Int(le16(bytes, body + 2))
                rate = Int(le32(bytes, body + 4))
                bits = Int(le16(bytes, body + 14))
            } else if id == "data" {
                guard bits == 16 else { throw VoiceError("\(path): only 16-bit PCM WAV is read, not \(bits)-bit") }
                let end = min(bytes.count, body + size)
                var pcm = samples(bytes[body..<end])
                if channels > 1 { pcm = stride(from: 0, to: pcm.count - channels + 1, by: channels).map { pcm[$0] } }
                return resample(pcm, from: rate, to: KeywordSpotter.sampleRate)
            }
            offset = body + size + (size & 1)
        }
        throw VoiceError("\(path): a WAV without a data chunk")
    }

    static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func le32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(le16(b, i)) | UInt32(le16(b, i + 2)) << 16 }

    static func samples(_ bytes: ArraySlice<UInt8>) -> [Int16] {
        var out = [Int16](repeating: 0, count: bytes.count / 2)
        var i = bytes.startIndex
        for n in 0..<out.count {
            out[n] = Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)
            i += 2
        }
        return out
    }

    /// Band-limited resampling (a windowed-sinc low-pass at the lower Nyquist, 16 taps a side).
    public static func resample(_ input: [Int16], from: Int, to: Int) -> [Int16] {
        guard from != to, !input.isEmpty else { return input }
        let ratio = Double(to) / Double(from)
        let cutoff = min(1, ratio)
        let taps = 16
        let count = Int(Double(input.count) * ratio)
        var out = [Int16](repeating: 0, count: count)
        for n in 0..<count {
            let centre = Double(n) / ratio
            let base = Int(centre)
            var sum = 0.0
            var weight = 0.0
            for k in (base - taps + 1)...(base + taps) where k >= 0 && k < input.count {
                let x = centre - Double(k)
                let sinc = x == 0 ? 1 : sin(.pi * x * cutoff) / (.pi * x * cutoff)
                let window = 0.5 + 0.5 * cos(.pi * x / Double(taps))
                let w = sinc * window
                sum += Double(input[k]) * w
                weight += w
            }
            let value = weight == 0 ? 0 : sum / weight
            out[n] = Int16(max(-32768, min(32767, value.rounded())))
        }
        return out
    }
}

/// Listens on a `VoiceInput` on its own thread and yields the commands spotted, stamped with
/// the seconds of audio heard when each was spotted.
///
/// @unchecked Sendable: `process` (Foundation's Process) is set once in `init` and afterwards
/// only asked `isRunning` and told `terminate()`, which it allows from any thread.
public final class VoiceListener: @unchecked Sendable {
    public struct Heard: Sendable, Equatable {
        public var command: VoiceCommand
        /// Seconds of audio before the moment it was spotted.
        public var audioSeconds: Double

        init(_ detection: KeywordSpotter.Detection) {
            command = detection.command
            audioSeconds = Double(detection.sample) / Double(KeywordSpotter.sampleRate)
        }
    }

    public let commands: AsyncStream<Heard>
    private let continuation: AsyncStream<Heard>.Continuation
    private let process: Process?

    /// Starts listening; throws when the model or a recorder is missing. A file is read at the
    /// pace it would be spoken when `realTime`, else as fast as it decodes.
    public init(input: VoiceInput, realTime: Bool = true, thresholds: [VoiceCommand: Int] = KeywordSpotter.defaultThresholds,
                mode: KeywordSpotter.Mode = KeywordSpotter.defaultMode) throws(VoiceError) {
        let spotter = try KeywordSpotter(thresholds: thresholds, mode: mode)
        (commands, continuation) = AsyncStream<Heard>.makeStream()
        let continuation = continuation
        switch input {
        case .file(let path):
            let samples = try VoiceAudio.read(path)
            process = nil
            Thread.detachNewThread {
                var start = 0
                while start < samples.count {
                    let end = min(samples.count, start + KeywordSpotter.chunk)
                    for found in spotter.process(Array(samples[start..<end])) { continuation.yield(Heard(found)) }
                    start = end
                    if realTime { Thread.sleep(forTimeInterval: Double(KeywordSpotter.chunk) / Double(KeywordSpotter.sampleRate)) }
                }
                for found in spotter.finish() { continuation.yield(Heard(found)) }
                continuation.finish()
            }
        case .microphone:
            guard let recorder = VoiceInput.recorder() else {
                throw VoiceError("voice commands need a microphone recorder: install pipewire-bin (pw-record), pulseaudio-utils (parec) or alsa-utils (arecord)")
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: recorder.path)
            process.arguments = recorder.arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch { throw VoiceError("cannot start \(recorder.path): \(error.localizedDescription)") }
            self.process = process
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread {
                var pending: [UInt8] = []
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    pending += data
                    let usable = pending.count & ~1
                    let samples = VoiceAudio.samples(pending[0..<usable])
                    pending.removeFirst(usable)
                    for found in spotter.process(samples) { continuation.yield(Heard(found)) }
                }
                for found in spotter.finish() { continuation.yield(Heard(found)) }
                continuation.finish()
            }
        }
    }

    public func stop() {
        if let process, process.isRunning { process.terminate() }
        continuation.finish()
    }
}
