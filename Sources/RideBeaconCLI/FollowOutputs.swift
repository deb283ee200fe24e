import BlueZ
import Foundation
import Guide
import GuideAudio
import Phrasebook
import Synchronization
import VoiceCommands

/// What `passenger follow` can speak, notify and hear through, opened at its start and said
/// there, in her language, in one sentence per missing part (issue 37, point 13): no audio
/// player and no desktop notifications used to be two English lines that contradicted each
/// other ("audio is off", then "every change is still spoken"), and a missing microphone for
/// `--voice-commands` was found only at the arrival.
struct FollowOutputs {
    let player: LiveCuePlayer
    let notifications: DesktopNotifications?
    let announcer: RideAnnouncer
    /// `--voice-commands`' input, nil when there is no microphone to hear it with (said at the start).
    let voiceInput: VoiceInput?

    /// What the device is asked for: the real ones in `run`, a test's in RideBeaconCLIUnitTests.
    struct Device: Sendable {
        /// Where the audio players are looked for (PATH).
        var environment: [String: String]
        var speech: @Sendable () throws -> any SpeechEngine
        var notifications: @Sendable () async throws -> DesktopNotifications
        /// Whether a microphone recorder (pw-record, parec, arecord) is installed.
        var hasMicrophone: @Sendable () -> Bool

        static let process = Device(environment: ProcessInfo.processInfo.environment, speech: { try EspeakSpeech.shared() },
                                    notifications: { try await DesktopNotifications.open() },
                                    hasMicrophone: { VoiceInput.recorder() != nil })
    }

    /// Opens the audio (`audioOut`), the voice, the notifications (unless `noNotifications`)
    /// and checks the microphone `voiceInput` needs; says what is missing, printed and (when
    /// there is sound) spoken. The lower-level reasons (which players are not on PATH, the
    /// D-Bus error) are printed only with `verbose`. Throws when `audioOut` names a file that
    /// cannot be written.
    static func open(audioOut: String, noNotifications: Bool, voice: VoiceSettings, voiceInput: VoiceInput?, book: Phrasebook,
                     verbose: Bool, device: Device = .process) async throws(CommandLineFailure) -> FollowOutputs {
        // While opening, the sink's own reasons are held: one sentence says what they add up to.
        let opening = OpeningLog(verbose: verbose)
        let sink: any AudioSink
        do { sink = try AudioOutput.open(audioOut, environment: device.environment) { opening.report($0) } } catch {
            throw CommandLineFailure(error.description)
        }
        var speech: (any SpeechEngine)?
        do { speech = try device.speech() } catch { opening.report("speech is off: \(error)") }
        let silent = sink is NullSink || (sink as? FallbackSink)?.isSilent == true
        // A file or standard output still records what is said; only no player, or no voice, is no sound.
        let soundMissing = audioOut != "none" && (silent || speech == nil)
        opening.finish()
        let player = LiveCuePlayer(speech: speech, voice: voice, sink: sink) { StandardError.writeLine("ridebeacon: \($0)") }
        player.start()
        var notifications: DesktopNotifications?
        var notificationsMissing = false
        if !noNotifications {
            do { notifications = try await device.notifications() } catch {
                notificationsMissing = true
                if verbose { StandardError.writeLine("ridebeacon: desktop notifications: \(error)") }
            }
        }
        let announcer = RideAnnouncer(player: player, notifications: notifications, book: book)
        let sound = !soundMissing && audioOut != "none"
        if let sentence = Self.sentence(sound: sound, soundMissing: soundMissing, notifications: notifications != nil,
                                        notificationsMissing: notificationsMissing, in: book) {
            await announcer.sayAside(sentence)
        }
        // At the start, not at the arrival: she learns it before she needs it.
        let (input, notice) = HandsFreeOptions.checked(voiceInput, book: book, hasMicrophone: device.hasMicrophone)
        if let notice { await announcer.sayAside(notice) }
        return FollowOutputs(player: player, notifications: notifications, announcer: announcer, voiceInput: input)
    }

    /// The one sentence about how her ride's news reaches her, when something she would expect is
    /// missing; nil when nothing is. `sound`: spoken aloud; `soundMissing`: she asked for sound
    /// and none can be made; the same pair for the desktop's notifications.
    static func sentence(sound: Bool, soundMissing: Bool, notifications: Bool, notificationsMissing: Bool,
                         in book: Phrasebook) -> String? {
        switch (soundMissing, notificationsMissing) {
        case (false, false): nil
        case (false, true): sound ? book(.followNoNotifications) : book(.followPrintedOnly)
        case (true, _): notifications ? book(.followNoSound) : book(.followPrintedOnly)
        }
    }
}

/// The audio's log while the outputs open: held, and printed only with --verbose (the sentence
/// says what it adds up to); after `finish`, a failure (a player that dies mid-ride) is printed as it comes.
private final class OpeningLog: Sendable {
    private let state = Mutex((opening: true, held: [String]()))
    private let verbose: Bool

    init(verbose: Bool) { self.verbose = verbose }

    func report(_ line: String) {
        let print = state.withLock { state -> Bool in
            if state.opening { state.held.append(line) }
            return !state.opening
        }
        if print { StandardError.writeLine("ridebeacon: \(line)") }
    }

    func finish() {
        let held = state.withLock { state in
            state.opening = false
            return state.held
        }
        if verbose { for line in held { StandardError.writeLine("ridebeacon: \(line)") } }
    }
}
