import CPocketSphinx
import Foundation
import Synchronization

public struct VoiceError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// PocketSphinx in keyword-spotting mode over 16 kHz mono 16-bit PCM: the commands' phrases,
/// each with its detection threshold (a smaller exponent is stricter: fewer false triggers,
/// more misses; chosen on the benchmark's seed set, BENCHMARKS.md "Voice commands").
public final class KeywordSpotter: @unchecked Sendable {
    public struct Detection: Equatable, Sendable {
        public var command: VoiceCommand
        /// Samples processed when it was spotted (its end lies a little before).
        public var sample: Int
        /// PocketSphinx's own hypothesis text.
        public var hypothesis: String = ""
    }

    public static let sampleRate = 16_000
    /// Debian's `pocketsphinx-en-us`.
    public static let modelDirectory = "/usr/share/pocketsphinx/model/en-us"
    /// Thresholds as powers of ten (1e-N is written N).
    public static let defaultThresholds: [VoiceCommand: Int] = [
        .repeatLast: 35, .whereIsCar: 50, .sound: 40, .cancelRide: 40, .help: 30, .yesCancel: 40,
    ]
    /// Audio is fed in 100 ms pieces; each is checked for a phrase.
    public static let chunk = 1_600

    /// `keywords`: PocketSphinx's keyword spotting (the default); `sentences`: a full decode of
    /// each stretch of speech with the model's general English language model, a command found
    /// when its words are the whole of what was said (compared in BENCHMARKS.md).
    public enum Mode: String, Sendable { case keywords, sentences }

    /// PocketSphinx 0.8 and sphinxbase keep process-wide state (the log file, the feature
    /// front end's tables and random generator), so decoders in one process take turns. The
    /// guide runs one decoder, so it never waits. (A voice test that heard nothing in a busy run
    /// was not this, in the end, but espeak-ng rendering its input differently: fixtures/voice.)
    private static let library = Mutex(())

    public let mode: Mode
    private let decoder: OpaquePointer
    private let keyphraseFile: String
    private var inSpeech = false
    public private(set) var processed = 0

    public init(thresholds: [VoiceCommand: Int] = defaultThresholds, model: String = modelDirectory, mode: Mode = .keywords) throws(VoiceError) {
        self.mode = mode
        let hmm = model + "/en-us"
        let dict = model + "/cmudict-en-us.dict"
        guard FileManager.default.fileExists(atPath: hmm + "/mdef"), FileManager.default.fileExists(atPath: dict) else {
            throw VoiceError("voice commands need PocketSphinx's English model (Debian: pocketsphinx-en-us), not found at \(model)")
        }
        let lines = VoiceCommand.allCases.map { "\($0.phrase) /1e-\(thresholds[$0] ?? Self.defaultThresholds[$0] ?? 20)/" }
        keyphraseFile = NSTemporaryDirectory() + "ridebeacon-kws-\(getpid())-\(UUID().uuidString).txt"
        guard FileManager.default.createFile(atPath: keyphraseFile, contents: Data((lines.joined(separator: "\n") + "\n").utf8)) else {
            throw VoiceError("cannot write the keyphrase file \(keyphraseFile)")
        }
        let file = keyphraseFile
        let opened = Self.library.withLock { _ in
            mode == .keywords ? rb_ps_open(hmm, dict, "-kws", file, "/dev/null")
                : rb_ps_open(hmm, dict, "-lm", model + "/en-us.lm.bin", "/dev/null")
        }
        guard let decoder = opened else {
            try? FileManager.default.removeItem(atPath: keyphraseFile)
            throw VoiceError("PocketSphinx could not load its model from \(model)")
        }
        self.decoder = decoder
        Self.library.withLock { _ in _ = ps_start_utt(decoder) }
    }

    deinit {
        Self.library.withLock { [decoder] _ in
            ps_end_utt(decoder)
            ps_free(decoder)
        }
        try? FileManager.default.removeItem(atPath: keyphraseFile)
    }

    /// Feeds samples; returns the phrases spotted in them, in order.
    public func process(_ samples: [Int16]) -> [Detection] {
        Self.library.withLock { _ in decode(samples) }
    }

    private func decode(_ samples: [Int16]) -> [Detection] {
        var found: [Detection] = []
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + Self.chunk)
            samples[start..<end].withUnsafeBufferPointer { piece in
                _ = ps_process_raw(decoder, piece.baseAddress, piece.count, 0, 0)
            }
            processed += end - start
            start = end
            var score: Int32 = 0
            if mode == .sentences {
                let speaking = ps_get_in_speech(decoder) != 0
                defer { inSpeech = speaking }
                guard inSpeech, !speaking else { continue }
                ps_end_utt(decoder)
                let words = ps_get_hyp(decoder, &score).map { String(cString: $0) } ?? ""
                ps_start_utt(decoder)
                if ProcessInfo.processInfo.environment["RIDEBEACON_VOICE_DEBUG"] != nil { FileHandle.standardError.write(Data("heard: \(words)\n".utf8)) }
                let said = words.split(separator: " ").map(String.init).filter { !$0.hasPrefix("<") && !$0.hasPrefix("[") }.joined(separator: " ")
                // Only an utterance that is the command itself (a sentence that merely contains
                // "help" is not a call for it).
                if let command = VoiceCommand(phrase: said) {
                    found.append(Detection(command: command, sample: processed, hypothesis: words))
                }
                continue
            }
            if let hypothesis = ps_get_hyp(decoder, &score) {
                // Several phrases in one piece come space-joined, each with a trailing space
                // ("cancel my ride  yes cancel my ride "): the one it ends with wins, the longest
                // when one phrase ends another ("yes cancel my ride" over "cancel my ride").
                let text = String(cString: hypothesis).split(separator: " ").joined(separator: " ")
                let ending = VoiceCommand.allCases.filter { text.hasSuffix(" " + $0.phrase) }
                if let command = VoiceCommand(phrase: text) ?? ending.max(by: { $0.phrase.count < $1.phrase.count }) {
                    found.append(Detection(command: command, sample: processed, hypothesis: text))
                }
                ps_end_utt(decoder)
                ps_start_utt(decoder)
            }
        }
        return found
    }
}
