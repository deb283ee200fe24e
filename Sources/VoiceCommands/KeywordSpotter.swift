import CPocketSphinx
import Foundation
import Synchronization

public struct VoiceError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// PocketSphinx over 16 kHz mono 16-bit PCM, finding the commands' phrases: in keyword-spotting
/// mode each with its detection threshold (a smaller exponent is stricter: fewer false
/// triggers, more misses; chosen on the benchmark's seed set, BENCHMARKS.md "Voice commands"),
/// or in one of the other `Mode`s.
public final class KeywordSpotter: Sendable {
    public struct Detection: Equatable, Sendable {
        public var command: VoiceCommand
        /// Samples processed when it was spotted (its end lies a little before).
        public var sample: Int
        /// PocketSphinx's own hypothesis text.
        public var hypothesis: String = ""
        /// The grammar mode's confidence (the lowest word posterior, 0...1); 1 in the others.
        public var confidence: Double = 1
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

    /// `keywords`: PocketSphinx's keyword spotting; `sentences`: a full decode of
    /// each stretch of speech with the model's general English language model, a command found
    /// when its words are the whole of what was said (compared in BENCHMARKS.md); `grammar`: each
    /// stretch of speech (PocketSphinx's own voice-activity detection, `ps_get_in_speech`)
    /// decoded against a grammar (`fsg`) whose alternatives are the commands and a loop of
    /// "garbage" (every phone of the model as a one-phone word), a command taken only when it is
    /// the whole hypothesis and its confidence (the lowest posterior of its words, from the
    /// utterance's lattice) reaches `Grammar.cut` (the default: on the benchmark's held-out voices
    /// it hears more at 10 dB than keyword spotting, with fewer false triggers).
    public enum Mode: String, Sendable { case keywords, sentences, grammar }

    /// The mode the guide listens in (BENCHMARKS.md "Voice commands" compares them).
    public static let defaultMode: Mode = .grammar

    /// The grammar mode's knobs (chosen on the benchmark's tuned voices, BENCHMARKS.md).
    public struct Grammar: Sendable, Equatable {
        /// The lowest posterior probability (0...1) a command's hypothesis must have.
        public var cut: Double
        /// The grammar's weight of each garbage phone against a command word's 1 (smaller: a
        /// command is preferred over the phones that would match it as well or better).
        public var garbageWeight: Double
        /// The silence, in 10 ms frames, PocketSphinx's voice-activity detector waits for before
        /// it ends an utterance (`-vad_postspeech`): the grammar mode decodes a command only then,
        /// so this is most of its latency. PocketSphinx's 50 (0.5 s); 35 was 0.15 s sooner with the
        /// same recognition but 22 false triggers an hour against 20, so not adopted (BENCHMARKS.md).
        public var endOfSpeechFrames: Int
        public init(cut: Double = 0.7, garbageWeight: Double = 0.02, endOfSpeechFrames: Int = 50) {
            self.cut = cut
            self.garbageWeight = garbageWeight
            self.endOfSpeechFrames = endOfSpeechFrames
        }
        public static let standard = Grammar()
    }

    /// PocketSphinx's default language weight (-lw), which scales the grammar's log weights.
    static let languageWeight: Float = 6.5

    /// The model's 39 phones (CMUdict's set), each a garbage word "gbg_<phone>" in the grammar.
    public static let phones = ["AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH", "IH", "IY", "JH",
                         "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH"]

    /// The grammar mode's grammar, as a PocketSphinx FSG (finite-state grammar): from the start,
    /// either a command's words to the end, or one or more garbage phones to the end, each
    /// phone weighted `garbageWeight` (the commands' words 1), so garbage never leads into a
    /// command. (Written as FSG, not JSGF: this sphinxbase compiled the JSGF `<command> |
    /// <garbage>+` with the loop's right recursion sent back to the start state, so garbage
    /// could precede a command: it heard "gbg_v gbg_f where is my car" in the recorded fixture.)
    /// PocketSphinx adds silence and noise self-loops to every state (`-fsgusefiller`).
    public static func fsg(garbageWeight: Double) -> String {
        var transitions: [String] = []
        let weight = String(format: "%.60f", garbageWeight)
        let start = 0, final = 1, garbage = 2
        // No null transitions: with "garbage, then a null arc to the end" the garbage weight
        // changed nothing (1e-5 to 1e-16 gave the same hypotheses) and speech was heard as
        // commands, as if garbage could not end an utterance (a grammar read from a file gets
        // no null-transition closure, which JSGF's compiler does). Each phone arc is there
        // twice instead: into the loop, and straight to the end.
        for phone in phones {
            for (from, to) in [(start, garbage), (start, final), (garbage, garbage), (garbage, final)] {
                transitions.append("TRANSITION \(from) \(to) \(weight) gbg_\(phone.lowercased())")
            }
        }
        var states = 3
        for command in VoiceCommand.allCases {
            let words = command.phrase.split(separator: " ")
            var from = start
            for (index, word) in words.enumerated() {
                let to = index == words.count - 1 ? final : states
                if to == states { states += 1 }
                transitions.append("TRANSITION \(from) \(to) 1.0 \(word)")
                from = to
            }
        }
        return (["FSG_BEGIN ridebeacon", "NUM_STATES \(states)", "START_STATE \(start)", "FINAL_STATE \(final)"]
            + transitions + ["FSG_END"]).joined(separator: "\n") + "\n"
    }

    /// PocketSphinx 0.8 and sphinxbase keep process-wide state (the log file, the feature
    /// front end's tables and random generator), so decoders in one process take turns. The
    /// guide runs one decoder, so it never waits. (A voice test that heard nothing in a busy run
    /// was not this, in the end, but espeak-ng rendering its input differently: fixtures/voice.)
    private static let library = Mutex(())

    public let mode: Mode
    public let grammar: Grammar
    /// PocketSphinx's decoder, a C pointer: used only while `library` is held.
    private struct DecoderHandle: @unchecked Sendable { let pointer: OpaquePointer }
    private let handle: DecoderHandle
    private var decoder: OpaquePointer { handle.pointer }
    /// Whether the last piece was speech (the utterance modes), and the samples fed so far.
    private let progress = Mutex<(inSpeech: Bool, processed: Int)>((false, 0))
    /// Samples processed so far.
    public var processed: Int { progress.withLock { $0.processed } }

    public init(thresholds: [VoiceCommand: Int] = defaultThresholds, model: String = modelDirectory, mode: Mode = defaultMode, grammar: Grammar = .standard) throws(VoiceError) {
        self.mode = mode
        self.grammar = grammar
        let hmm = model + "/en-us"
        let dict = model + "/cmudict-en-us.dict"
        guard FileManager.default.fileExists(atPath: hmm + "/mdef"), FileManager.default.fileExists(atPath: dict) else {
            throw VoiceError("voice commands need PocketSphinx's English model (Debian: pocketsphinx-en-us), not found at \(model)")
        }
        let keyphrases = VoiceCommand.allCases.map { "\($0.phrase) /1e-\(thresholds[$0] ?? Self.defaultThresholds[$0] ?? 20)/\n" }.joined()
        var unwritable: String?
        let opened: OpaquePointer? = Self.library.withLock { _ in
            switch mode {
            case .keywords:
                return Self.readingScratchFile(keyphrases, ending: "kws", unwritable: &unwritable) { rb_ps_open(hmm, dict, "-kws", $0, "/dev/null") }
            case .sentences: return rb_ps_open(hmm, dict, "-lm", model + "/en-us.lm.bin", "/dev/null")
            case .grammar:
                guard let decoder = rb_ps_open_bare(hmm, dict, "/dev/null", String(grammar.endOfSpeechFrames)) else { return nil }
                for phone in Self.phones { _ = ps_add_word(decoder, "gbg_" + phone.lowercased(), phone, 0) }
                // PocketSphinx keeps its own reference to the grammar once it is set.
                let searchSet = Self.readingScratchFile(Self.fsg(garbageWeight: grammar.garbageWeight), ending: "fsg", unwritable: &unwritable) { path -> Bool? in
                    guard let model = fsg_model_readfile(path, ps_get_logmath(decoder), Self.languageWeight) else { return nil }
                    defer { _ = fsg_model_free(model) }
                    return ps_set_fsg(decoder, "commands", model) == 0 && ps_set_search(decoder, "commands") == 0
                }
                guard searchSet == true else {
                    ps_free(decoder)
                    return nil
                }
                return decoder
            }
        }
        if let unwritable { throw VoiceError("cannot write PocketSphinx's search file \(unwritable)") }
        guard let decoder = opened else {
            throw VoiceError("PocketSphinx could not load its model from \(model)")
        }
        handle = DecoderHandle(pointer: decoder)
        Self.library.withLock { _ in _ = ps_start_utt(decoder) }
    }

    deinit {
        Self.library.withLock { [decoder] _ in
            ps_end_utt(decoder)
            ps_free(decoder)
        }
    }

    /// PocketSphinx reads keyphrases and grammars from files, only while it sets up the search:
    /// each is written to a scratch file that lives just as long as `read`. `unwritable` names
    /// the file when it could not be written (then `read` is not called).
    private static func readingScratchFile<T>(_ contents: String, ending: String, unwritable: inout String?,
                                              _ read: (String) -> T?) -> T? {
        let path = NSTemporaryDirectory() + "ridebeacon-voice-\(getpid())-\(UUID().uuidString).\(ending)"
        guard FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)) else {
            unwritable = path
            return nil
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        return read(path)
    }

    /// Feeds samples; returns the phrases spotted in them, in order.
    public func process(_ samples: [Int16]) -> [Detection] {
        Self.library.withLock { _ in decode(samples) }
    }

    /// The ended utterance's confidence: over the words of its best path (fillers, silences and
    /// garbage phones aside), the lowest posterior probability of that word at that time, i.e. the summed
    /// posteriors of every lattice link of the same word spanning the middle of it (one word is
    /// many links that differ only in their start or end frame), from the utterance's word
    /// lattice and its forward-backward pass. (This PocketSphinx's grammar search runs no
    /// lattice pass of its own: `ps_get_prob` and `ps_seg_prob` give 0, "certain", for every
    /// hypothesis, so the lattice is asked directly.) 0 when no lattice or path could be made.
    private func latticeConfidence() -> Double {
        guard let dag = ps_get_lattice(decoder) else { return 0 }
        let ascale: Float = 1.0 / 20  // PocketSphinx's default -ascale, as its own searches use
        guard let best = ps_lattice_bestpath(dag, nil, 1.0, ascale) else { return 0 }
        _ = ps_lattice_posterior(dag, nil, ascale)
        let logmath = ps_lattice_get_logmath(dag)
        func word(_ link: OpaquePointer) -> String { ps_latlink_baseword(dag, link).map { String(cString: $0) } ?? "" }
        // Every link: word, start and end frame, posterior.
        var links: [(word: String, start: Int, end: Int, posterior: Double)] = []
        var nodes = ps_latnode_iter(dag)
        while let nodeIterator = nodes {
            if let node = ps_latnode_iter_node(nodeIterator) {
                var exits = ps_latnode_exits(node)
                while let exitIterator = exits {
                    if let link = ps_latlink_iter_link(exitIterator) {
                        var start: Int16 = 0
                        let end = ps_latlink_times(link, &start)
                        links.append((word(link), Int(start), Int(end), logmath_exp(logmath, ps_latlink_prob(dag, link, nil))))
                    }
                    exits = ps_latlink_iter_next(exitIterator)
                }
            }
            nodes = ps_latnode_iter_next(nodeIterator)
        }
        var lowest: Double?
        var link: OpaquePointer? = best
        while let current = link {
            let said = word(current)
            // Garbage phones aside too: the lattice's best path can begin with one over the
            // speech's onset where the search's own path had silence, and the command is
            // judged by its own words.
            if !said.isEmpty, !said.hasPrefix("<"), !said.hasPrefix("["), !said.hasPrefix("gbg_") {
                var start: Int16 = 0
                let end = Int(ps_latlink_times(current, &start))
                let middle = (Int(start) + end) / 2
                let posterior = links.filter { $0.word == said && $0.start <= middle && middle <= $0.end }.reduce(0) { $0 + $1.posterior }
                lowest = min(lowest ?? 1, min(1, posterior))
            }
            link = ps_latlink_pred(current)
        }
        return lowest ?? 0
    }

    /// The end of the audio (a file's end, the recorder gone): in the modes that decode
    /// utterance by utterance, the one still under way is decoded now (its end was not heard
    /// as silence). Keyword spotting has nothing pending.
    public func finish() -> [Detection] {
        Self.library.withLock { _ in
            guard mode != .keywords, progress.withLock({ $0.inSpeech }) else { return [] }
            progress.withLock { $0.inSpeech = false }
            return endUtterance().map { [$0] } ?? []
        }
    }

    /// Ends the utterance under way, decodes it and starts the next: its command, if it is one
    /// (only an utterance that is the command itself: a sentence that merely contains "help" is
    /// not a call for it; in the grammar mode, only with the confidence).
    private func endUtterance() -> Detection? {
        var score: Int32 = 0
        ps_end_utt(decoder)
        let words = ps_get_hyp(decoder, &score).map { String(cString: $0) } ?? ""
        let said = words.split(separator: " ").map(String.init).filter { !$0.hasPrefix("<") && !$0.hasPrefix("[") }.joined(separator: " ")
        let command = VoiceCommand(phrase: said)
        let confidence = mode == .grammar && command != nil ? latticeConfidence() : 1
        ps_start_utt(decoder)
        if ProcessInfo.processInfo.environment["RIDEBEACON_VOICE_DEBUG"] != nil {
            FileHandle.standardError.write(Data("heard: \(words) (confidence \(confidence))\n".utf8))
        }
        guard let command, confidence >= (mode == .grammar ? grammar.cut : 0) else { return nil }
        return Detection(command: command, sample: processed, hypothesis: words, confidence: confidence)
    }

    private func decode(_ samples: [Int16]) -> [Detection] {
        var found: [Detection] = []
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + Self.chunk)
            samples[start..<end].withUnsafeBufferPointer { piece in
                _ = ps_process_raw(decoder, piece.baseAddress, piece.count, 0, 0)
            }
            let processed = progress.withLock { state in
                state.processed += end - start
                return state.processed
            }
            start = end
            var score: Int32 = 0
            if mode != .keywords {
                let speaking = ps_get_in_speech(decoder) != 0
                let wasSpeaking = progress.withLock { state in
                    defer { state.inSpeech = speaking }
                    return state.inSpeech
                }
                guard wasSpeaking, !speaking else { continue }
                if let detection = endUtterance() { found.append(detection) }
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
