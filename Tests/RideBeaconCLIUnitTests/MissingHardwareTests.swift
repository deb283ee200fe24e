import Foundation
import Guide
import GuideAudio
import Phrasebook
@testable import RideBeaconCLI
import Testing

/// Issue 37, point 13: missing hardware is said at the start, in her language, one true
/// sentence each: no audio player (and no notifications), no microphone for
/// `--voice-commands`, and `settings set --haptics` where feedbackd does not answer.
@Suite("missing hardware, said at the start in her language")
struct MissingHardwareTests {
    struct NoDevice: Error, CustomStringConvertible {
        var description: String { "org.freedesktop.DBus.Error.NoServer: no session bus" }
    }

    /// A voice that speaks every text as a few samples (espeak-ng is not what is tested here).
    struct ShortSpeech: SpeechEngine {
        func synthesize(_ text: String, voice: VoiceSettings) throws(SpeechError) -> SpokenPhrase {
            SpokenPhrase(text: text, samples: [Int16](repeating: 100, count: 160), voice: voice.voice, fallback: nil, synthesisSeconds: 0)
        }
    }

    /// A device with no audio player on PATH (unless `player`), no notification service and no
    /// microphone recorder; a voice when `speaks`.
    static func device(speaks: Bool = false, microphone: Bool = false) -> FollowOutputs.Device {
        FollowOutputs.Device(environment: ["PATH": "/nonexistent-ridebeacon-path"],
                             speech: { if speaks { return ShortSpeech() } else { throw SpeechError("no espeak-ng data") } },
                             notifications: { throw NoDevice() }, hasMicrophone: { microphone })
    }

    static func open(_ language: Language, audioOut: String = "auto", noNotifications: Bool = false, listening: Bool = false,
                     device: FollowOutputs.Device, console: ConsoleRecorder, verbose: Bool = false) async throws -> FollowOutputs {
        try await console.record {
            try await FollowOutputs.open(audioOut: audioOut, noNotifications: noNotifications, voice: .standard,
                                         voiceInput: listening ? .microphone : nil, book: Phrasebook(language), verbose: verbose,
                                         device: device)
        }
    }

    @Test("no audio player and no notifications: one sentence, printed only, never 'still spoken'", arguments: Language.allCases)
    func noAudioNoNotifications(language: Language) async throws {
        let console = ConsoleRecorder()
        let outputs = try await Self.open(language, device: Self.device(speaks: true), console: console)
        try outputs.player.stop()
        let book = Phrasebook(language)
        #expect(console.out == [book(.followPrintedOnly)], "\(console.out)")
        #expect(console.err.isEmpty, "the players' reasons are no second sentence: \(console.err)")
        #expect(!console.out.contains { $0.contains(book(.followNoNotifications)) || $0.contains("audio is off") })
    }

    @Test("no audio player, notifications declined: still one sentence that says printed only")
    func noAudioNotificationsDeclined() async throws {
        let console = ConsoleRecorder()
        let outputs = try await Self.open(.es, noNotifications: true, device: Self.device(), console: console)
        try outputs.player.stop()
        #expect(console.out == [Phrasebook(.es)(.followPrintedOnly)], "\(console.out)")
        #expect(console.err.isEmpty, "\(console.err)")
    }

    @Test("--verbose adds the players' and the bus's reasons on standard error, after the one sentence")
    func verboseReasons() async throws {
        let console = ConsoleRecorder()
        let outputs = try await Self.open(.en, device: Self.device(), console: console, verbose: true)
        try outputs.player.stop()
        #expect(console.out == [Phrasebook.english(.followPrintedOnly)], "\(console.out)")
        #expect(console.err.contains { $0.contains("pw-play") } && console.err.contains { $0.contains("no session bus") }, "\(console.err)")
    }

    @Test("sound into a file and no notifications: spoken and printed, and that sentence is spoken too")
    func soundWithoutNotifications() async throws {
        let wav = NSTemporaryDirectory() + "rb-follow-outputs-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let console = ConsoleRecorder()
        let outputs = try await Self.open(.fr, audioOut: wav, device: Self.device(speaks: true), console: console)
        let sentence = Phrasebook(.fr)(.followNoNotifications)
        #expect(console.out == [sentence], "\(console.out)")
        #expect(outputs.player.log.contains { $0.kind == .speech(SinkText.speech(sentence)) }, "\(outputs.player.log.map(\.kind))")
        try outputs.player.stop()
    }

    @Test("no microphone for --voice-commands: said at the start in her language, printed and spoken, and not listened for",
          arguments: Language.allCases)
    func noMicrophoneAtStart(language: Language) async throws {
        let wav = NSTemporaryDirectory() + "rb-follow-mic-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let console = ConsoleRecorder()
        let outputs = try await Self.open(language, audioOut: wav, noNotifications: true, listening: true,
                                          device: Self.device(speaks: true), console: console)
        let sentence = Phrasebook(language)(.voiceNoMicrophone)
        #expect(console.out == [sentence], "\(console.out)")
        #expect(console.err.isEmpty, "not an English line on standard error: \(console.err)")
        #expect(outputs.player.log.contains { $0.kind == .speech(SinkText.speech(sentence)) }, "spoken too")
        #expect(outputs.voiceInput == nil, "the guide does not try the microphone again at the arrival")
        try outputs.player.stop()
    }

    @Test("a microphone recorder present: nothing said, the guide listens")
    func microphonePresent() async throws {
        let console = ConsoleRecorder()
        let outputs = try await Self.open(.en, audioOut: "none", noNotifications: true, listening: true,
                                          device: Self.device(microphone: true), console: console)
        try outputs.player.stop()
        #expect(console.out.isEmpty && console.err.isEmpty, "\(console.out) \(console.err)")
        #expect(outputs.voiceInput == .microphone)
    }

    @Test("`passenger guide`'s start: the same check, in her language")
    func guideChecksTheMicrophone() throws {
        let options = try HandsFreeOptions.parse(["--voice-commands"])
        let checked = HandsFreeOptions.checked(options.input, book: Phrasebook(.es)) { false }
        #expect(checked.input == nil && checked.notice == Phrasebook(.es)(.voiceNoMicrophone))
        let heard = HandsFreeOptions.checked(options.input, book: Phrasebook(.es)) { true }
        #expect(heard.input == .microphone && heard.notice == nil)
        #expect(HandsFreeOptions.checked(nil, book: .english) { false }.notice == nil, "no --voice-commands, nothing to say")
    }

    // MARK: settings set --haptics

    static func saveHaptics(_ arguments: [String], feedbackd: Bool, language: String? = nil) async throws
        -> (lines: [String], saved: Settings) {
        let directory = NSTemporaryDirectory() + "rb-settings-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/settings.json"
        if let language {
            var settings = Settings.standard
            settings.language = language
            try settings.save(to: path)
        }
        let command = try SettingsCommand.Set.parse(arguments)
        let console = ConsoleRecorder()
        try await console.record { try await command.save(to: path, feedbackdAnswers: { feedbackd }) }
        return (console.out, try Settings.load(from: path))
    }

    @Test("--haptics only without feedbackd: saved, and a warning in her language says the guide sounds instead")
    func hapticsOnlyWithoutFeedbackd() async throws {
        let (lines, saved) = try await Self.saveHaptics(["--haptics", "only"], feedbackd: false, language: "fr")
        #expect(saved.haptics == .only, "the setting is still saved")
        // Every line in her language, the first one too (it was an English "Saved …").
        #expect(lines.count == 2 && lines.first?.hasPrefix("Enregistré dans ") == true, "\(lines)")
        #expect(lines.last == Phrasebook(.fr)(.hapticsOnlySavedWithoutFeedbackd), "\(lines)")
    }

    @Test("--haptics on without feedbackd: its own warning (sound alone); with feedbackd, or off, no warning")
    func hapticsOnAndOff() async throws {
        let on = try await Self.saveHaptics(["--haptics", "on"], feedbackd: false)
        #expect(on.lines.last == Phrasebook.english(.hapticsOnSavedWithoutFeedbackd), "\(on.lines)")
        let answered = try await Self.saveHaptics(["--haptics", "only"], feedbackd: true)
        #expect(answered.lines.count == 1 && answered.saved.haptics == .only, "\(answered.lines)")
        let off = try await Self.saveHaptics(["--haptics", "off"], feedbackd: false)
        #expect(off.lines.count == 1, "\(off.lines)")
        let other = try await Self.saveHaptics(["--rate", "200"], feedbackd: false)
        #expect(other.lines.count == 1, "only a change of --haptics is checked: \(other.lines)")
    }
}
