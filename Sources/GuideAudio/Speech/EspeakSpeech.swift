import CEspeakNG
import Foundation
import Synchronization

/// Speech through libespeak-ng in synchronous mode: `espeak_Synth` returns only after the
/// synth callback has handed over every sample, so no audio thread of espeak's own is involved.
///
/// espeak-ng keeps all of its state (voice, parameters, callback) in globals, so there is one
/// instance per process and every call goes through its lock; initialisation happens once.
/// The lock guards espeak-ng's globals as much as `selected`: a synthesis holds it throughout
/// (that is the library's one-caller rule, not work that could move out).
public final class EspeakSpeech: SpeechEngine, Sendable {
    /// Voice used when the requested one is missing.
    public static let defaultVoice = "en"

    /// The process-wide engine; throws when libespeak-ng cannot find its data.
    public static func shared() throws(SpeechError) -> EspeakSpeech {
        switch sharedResult {
        case .success(let engine): return engine
        case .failure(let error): throw error
        }
    }

    private static let sharedResult: Result<EspeakSpeech, SpeechError> = {
        // DONT_EXIT: a missing data directory must be an error we report, not exit(1) inside the library.
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 100, nil, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else {
            return .failure(SpeechError("espeak-ng could not initialise (is espeak-ng-data installed?)"))
        }
        guard Int(rate) == AudioFormat.sampleRate else {
            return .failure(SpeechError("espeak-ng renders at \(rate) Hz, expected \(AudioFormat.sampleRate) Hz"))
        }
        espeak_SetSynthCallback(collectSamples)
        return .success(EspeakSpeech())
    }()

    /// Voice name last selected in espeak-ng, to skip reloading it for every phrase; its lock is
    /// the one every call into espeak-ng holds.
    private let selected = Mutex<(requested: String, used: String)?>(nil)

    private init() {}

    /// A spelled run ("Ride A Y 4 W", "plate A B 1 2 C D E") read one character at a time:
    /// English voices read a lone "A" as the word "a" (a schwa), so inside such a run, next to
    /// another single character, it is given to espeak-ng as the letter's phonemes, `[[eI]]`.
    /// Spanish and French voices say "a" for both.
    public static func letterByLetter(_ text: String, voice: String) -> String {
        guard voice.lowercased().hasPrefix("en"), text.contains("A") else { return text }
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        func bare(_ i: Int) -> String? { words.indices.contains(i) ? words[i].trimmingCharacters(in: .punctuationCharacters) : nil }
        func single(_ i: Int) -> Bool { bare(i)?.count == 1 }
        for i in words.indices where bare(i) == "A" && (single(i - 1) || single(i + 1)) {
            words[i] = words[i].replacingOccurrences(of: "A", with: "[[eI]]")
        }
        return words.joined(separator: " ")
    }

    public func synthesize(_ text: String, voice settings: VoiceSettings) throws(SpeechError) -> SpokenPhrase {
        if let problem = settings.validationError { throw SpeechError(problem) }
        guard text.contains(where: { !$0.isWhitespace }) else { throw SpeechError("nothing to say: the phrase is empty") }
        return try selected.withLock { selected throws(SpeechError) -> SpokenPhrase in
            let started = ContinuousClock.now
            let used = try Self.select(settings.voice, &selected)
            espeak_SetParameter(espeakRATE, Int32(settings.rate), 0)
            espeak_SetParameter(espeakPITCH, Int32(settings.pitch), 0)
            espeak_SetParameter(espeakVOLUME, Int32(settings.volume), 0)
            let collector = SampleCollector()
            let box = Unmanaged.passRetained(collector)
            defer { box.release() }
            let status = Self.letterByLetter(text, voice: used).withCString { cText in
                espeak_Synth(cText, strlen(cText) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, box.toOpaque())
            }
            guard status == EE_OK else { throw SpeechError("espeak-ng could not synthesise \"\(text)\" (error \(status.rawValue))") }
            let fallback = used == settings.voice ? nil : VoiceFallback(requested: settings.voice, used: used)
            return SpokenPhrase(
                text: text, samples: collector.samples, voice: used, fallback: fallback,
                synthesisSeconds: (ContinuousClock.now - started).inSeconds
            )
        }
    }

    /// Which voice would speak for `name`: `name` itself, or the fallback when it is not installed.
    public func resolveVoice(_ name: String) throws(SpeechError) -> VoiceFallback? {
        let used = try selected.withLock { selected throws(SpeechError) in try Self.select(name, &selected) }
        return used == name ? nil : VoiceFallback(requested: name, used: used)
    }

    /// Names of the installed voices (languages), e.g. "en", "en-us", "de".
    public func installedVoices() -> [String] {
        let names = selected.withLock { _ -> [String] in
            guard var entry = espeak_ListVoices(nil) else { return [] }
            var names: [String] = []
            while let voice = entry.pointee {
                // `languages` is a run of (priority byte, NUL-terminated name), ended by a zero byte.
                if var cursor = voice.pointee.languages {
                    while cursor.pointee != 0 {
                        let name = String(cString: cursor + 1)
                        names.append(name)
                        cursor += 1 + name.utf8.count + 1
                    }
                }
                entry += 1
            }
            return names
        }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// Must be called with the lock held (`selected` is its value).
    private static func select(_ name: String, _ selected: inout (requested: String, used: String)?) throws(SpeechError) -> String {
        if let selected, selected.requested == name { return selected.used }
        var used = name
        if espeak_SetVoiceByName(name) != EE_OK {
            used = Self.defaultVoice
            guard espeak_SetVoiceByName(used) == EE_OK else {
                throw SpeechError("espeak-ng has neither voice \(name) nor the default voice \(used)")
            }
        }
        selected = (name, used)
        return used
    }
}

/// Receives the samples of one `espeak_Synth` call (passed as its user data).
private final class SampleCollector {
    var samples: [Int16] = []
}

/// espeak-ng's synth callback: appends each chunk to the collector named in the events' user data.
private func collectSamples(
    _ wav: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    guard let wav, count > 0, let userData = events?.pointee.user_data else { return 0 }
    let collector = Unmanaged<SampleCollector>.fromOpaque(userData).takeUnretainedValue()
    collector.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count)))
    return 0
}
