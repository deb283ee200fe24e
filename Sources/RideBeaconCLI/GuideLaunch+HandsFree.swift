import ArgumentParser
import FeedbackHaptics
import Foundation
import Guide
import GuideAudio
import Phrasebook
import RideClient
import VoiceCommands

/// `--voice-commands` and `--voice-input`: hands-free commands for `passenger guide` and
/// `passenger follow` (`--haptics` is a saved setting, in VoiceOptions).
struct HandsFreeOptions: ParsableArguments {
    @Flag(name: .customLong("voice-commands"),
          help: "Listen for spoken commands (English): repeat that, where is my car, play the sound, cancel my ride (asks you to say yes, cancel my ride), what can I say.")
    var voiceCommands = false
    @Option(name: .customLong("voice-input"),
            help: ArgumentHelp("With --voice-commands: mic (PipeWire, PulseAudio or ALSA), or a WAV / raw 16 kHz PCM file to listen to instead.",
                               valueName: "mic|FILE"))
    var voiceInput = "mic"

    func validate() throws {
        guard voiceInput == "mic" || FileManager.default.isReadableFile(atPath: voiceInput) else {
            throw ValidationError("--voice-input must be mic or a readable audio file; \(voiceInput) cannot be read")
        }
    }

    var input: VoiceInput? {
        guard voiceCommands else { return nil }
        return voiceInput == "mic" ? .microphone : .file(voiceInput)
    }

    /// The input to listen on once the guide starts, checked at the command's start: without a
    /// microphone recorder (`hasMicrophone`) there is none, and `notice` is the sentence that
    /// says so, in `book`'s language, for her to hear before she needs it (issue 37, point 13:
    /// it came at the arrival, in English).
    static func checked(_ input: VoiceInput?, book: Phrasebook, hasMicrophone: () -> Bool = { VoiceInput.recorder() != nil })
        -> (input: VoiceInput?, notice: String?) {
        guard let input else { return (nil, nil) }
        if input == .microphone, !hasMicrophone() { return (nil, book(.voiceNoMicrophone)) }
        return (input, nil)
    }
}

/// The guide's vibrations and voice commands, opened before guiding and closed after.
struct HandsFree {
    var haptics: FeedbackdHaptics?
    /// False in haptics-only mode with feedbackd there: the guide is silent (text still printed).
    var sounds = true
    var listener: VoiceListener?
    var sentences = VoiceSentences()
    /// What she must hear about her hands-free parts, in her language: the guide prints and says
    /// them once its player is open.
    var notices: [String] = []

    /// Opens feedbackd when `mode` vibrates; a missing feedbackd is said once, on standard
    /// error, and guiding goes on with sound (even with `only`: never a silent guide that
    /// cannot vibrate).
    static func open(mode: HapticsMode, voice: VoiceInput?, book: Phrasebook) async -> HandsFree {
        var handsFree = HandsFree()
        handsFree.sentences.help = book(.voiceHelp)
        handsFree.sentences.confirmCancel = book(.voiceConfirmCancel)
        handsFree.sentences.cancelling = book(.voiceCancelling)
        handsFree.sentences.kept = book(.voiceKept)
        if mode.vibrates {
            handsFree.haptics = await FeedbackdHaptics.open(missing: book(.hapticsMissing), stopped: book(.hapticsStopped)) {
                StandardError.writeLine("ridebeacon: " + $0)
            }
            handsFree.sounds = mode.sounds || handsFree.haptics == nil
        }
        if let voice {
            if book.language != .en { StandardError.writeLine("ridebeacon: " + book(.voiceEnglishOnly)) }
            do { handsFree.listener = try VoiceListener(input: voice, realTime: true) } catch {
                // Her microphone: said in her language, printed and spoken by the guide (issue 37, point 13).
                if voice == .microphone { handsFree.notices.append(book(.voiceMicrophoneFailed)) } else {
                    StandardError.writeLine("ridebeacon: voice commands are off: \(error)")
                }
            }
        }
        return handsFree
    }

    /// The guide's keys: the keyboard's and, when listening, the spoken ones; help and the
    /// cancel question are answered here (`say`), a confirmed cancel calls `cancel`.
    /// Commands spotted while `speaking()` (the guide's own voice: "Walk towards the sound"
    /// must not ask for the sound) are dropped.
    func keys(_ keyboard: AsyncStream<GuideKey>, say: @escaping @Sendable (String) -> Void,
              speaking: @escaping @Sendable () -> Bool = { false },
              cancel: @escaping @Sendable () async -> Void) -> AsyncStream<GuideKey> {
        guard let listener else { return keyboard }
        let (merged, feed) = AsyncStream<GuideKey>.makeStream()
        Task {
            for await key in keyboard { feed.yield(key) }
            feed.finish()
        }
        enum Moment: Sendable { case heard(VoiceCommand), tick }
        let (moments, moment) = AsyncStream<Moment>.makeStream()
        let ticker = Task {
            while !Task.isCancelled {
                moment.yield(.tick)
                try? await Task.sleep(for: .seconds(1))
            }
        }
        Task {
            for await heard in listener.commands {
                guard !speaking() else {
                    StandardError.writeLine("ridebeacon: heard \"\(heard.command.phrase)\" while the guide spoke; ignored")
                    continue
                }
                StandardError.writeLine("ridebeacon: heard \"\(heard.command.phrase)\"")
                moment.yield(.heard(heard.command))
            }
            ticker.cancel()
            moment.finish()
        }
        Task {
            var dialogue = VoiceDialogue(sentences: sentences)
            let start = ContinuousClock.now
            for await next in moments {
                let elapsed = ContinuousClock.now - start
                let now = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let outcomes: [VoiceOutcome]
                switch next {
                case .heard(let command): outcomes = dialogue.heard(command, at: now)
                case .tick: outcomes = dialogue.expire(at: now)
                }
                for outcome in outcomes {
                    switch outcome {
                    case .key(let key): feed.yield(key)
                    case .say(let text): say(text)
                    case .cancelRide: await cancel()
                    }
                }
            }
        }
        return merged
    }

    /// Whether `player` is saying something, or stopped less than half a second ago (its own
    /// words reach the microphone: half duplex).
    static func speaking(_ player: LiveCuePlayer) -> Bool {
        let now = player.now
        return player.log.contains { record in
            guard case .speech = record.kind else { return false }
            if record.fate == .pending { return true }
            guard record.fate == .sounded, let start = record.start else { return false }
            return start <= now && now <= (record.end ?? now) + 0.5
        }
    }

    func close() async {
        listener?.stop()
        await haptics?.close()
    }
}
