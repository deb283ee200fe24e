import ArgumentParser
import BlueZ
import RadioCore
import Foundation
import Guide
import GuideAudio
import Phrasebook
import BeaconCore
import RideClient
import VoiceCommands
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// Everything `passenger guide` resolved before guiding, and the hand-over to the live guide
/// (Sources/Guide/Runtime): radio, audio player and keys opened here, guiding there.
struct GuideLaunch {
    let client: any RideCommandService
    let ride: Ride
    let settings: Settings
    let radio: RadioSelection
    let audioOut: String
    /// For servers that do not send `identityPeriodSeconds` with the ride key.
    let fallbackIdentityPeriod: Int
    let calibration: Calibration
    /// The passenger's keys (KeyboardKeys, routed past the wait for a driver).
    let keys: AsyncStream<GuideKey>
    var compass = CompassChoice.auto
    /// `passenger follow`: the radio it already opened, and its own player (kept open after
    /// the guide ends, for the announcements that follow).
    var openedRadio: (any Radio)?
    var sharedPlayer: LiveCuePlayer?
    /// `--voice-commands`' input (nil: not listening); vibrations follow `settings.haptics`.
    var voiceInput: VoiceInput?
    /// Where her satellite position comes from (`--position`, `--positions`; issue 35).
    var positions = PositionChoice.off
    /// Sentences printed at the command's start before a voice existed (no microphone):
    /// spoken once the guide's player is open.
    var spokenNotices: [String] = []

    func run() async throws {
        let book = Phrasebook(settings.phraseLanguage)
        // On arrival the guide's own first sentence says so ("Your driver has arrived. …"): the
        // printed line does not say it a second time (issue 25: one consistent opening).
        let state = ride.state == .arrived ? "" : RideWords.state(ride.state, in: book)
        Say.line(book(.rideGuideOpening, ["code": .text(ride.handle), "driver": .text(RideWords.driver(ride.driver, in: book)),
                                          "state": .text(state)]).trimmingCharacters(in: .whitespaces))
        if ride.state == .confirmed || ride.state.isFinal { return }
        guard let key = ride.rideKey else { throw CommandLineFailure(book(.guideNoRideKey, ["code": .text(ride.handle)])) }
        let identity: RotatingIdentity
        do { identity = try key.identity(fallbackPeriod: fallbackIdentityPeriod) } catch {
            throw CommandLineFailure(book(.guideUnusableRideKey, ["code": .text(ride.handle)]))
        }
        let handsFree = await HandsFree.open(mode: settings.haptics, voice: voiceInput, book: book)
        let player: LiveCuePlayer
        if let sharedPlayer {
            player = sharedPlayer
        } else {
            let sink: any AudioSink
            // Haptics only: silent guidance (the sentences are still printed).
            // The players' own reasons (which are not on PATH, which failed) are not hers to
            // read: one sentence in her language, once, when no sound is left (issue 37).
            let soundGone = OnceFlag()
            let noSound = book(.guideNoSound)
            do {
                sink = try AudioOutput.open(handsFree.sounds ? audioOut : "none") { reason in
                    if GuideSoundWords.leavesNoSound(reason), !soundGone.swap() { StandardError.writeLine("ridebeacon: " + noSound) }
                }
            } catch {
                throw CommandLineFailure(error.description)
            }
            var speech: (any SpeechEngine)?
            if handsFree.sounds { do {
                let engine = try EspeakSpeech.shared()
                if let fallback = try engine.resolveVoice(settings.speakingVoice.voice) { StandardError.writeLine("ridebeacon: \(fallback)") }
                speech = engine
            } catch {
                StandardError.writeLine("ridebeacon: " + book(.guideNoSpeech))
            } }
            player = LiveCuePlayer(speech: speech, voice: settings.speakingVoice, sink: sink) { StandardError.writeLine("ridebeacon: \($0)") }
        }
        for notice in spokenNotices { player.say(notice, urgent: true) }
        for notice in handsFree.notices {
            Say.line(notice)
            player.say(notice, urgent: true)
        }
        let radio: any Radio
        if let openedRadio { radio = openedRadio } else { radio = try await openRadio(self.radio) }
        let compass = await openCompass(in: book)
        // Her position goes to the driver's device and his comes back to the guide's far field (issue 35).
        let shared = await DevicePositions.start(positions, rideID: ride.id, side: .passenger, service: client)
        var guide = LiveGuide(
            ride: GuideRide(rideID: ride.id, driverName: ride.driver.name, vehicle: RideWords.vehicle(ride.driver, in: book) ?? book(.rideUnknownVehicle),
                            identity: identity, rideWord: SharedRideWord.phrase(ride, key: key.bytes)),
            alreadyArrived: ride.state == .arrived, verbosity: settings.verbosity, phrases: PhraseTable(book.language),
            calibration: calibration, radio: radio, service: client, player: player,
            keys: handsFree.keys(keys, say: { Say.line($0); player.say($0, urgent: true) },
                                 speaking: { HandsFree.speaking(player) }, cancel: { [client, ride] in
                do { _ = try await client.cancelRide(ride.id, reason: "cancelled by voice", idempotencyKey: IdempotencyKey()) } catch {
                    StandardError.writeLine("ridebeacon: the ride was not cancelled: \(error)")
                }
            })) { Say.line($0) }
        guide.haptics = handsFree.haptics
        // A terminal has an Enter key; keys piped in come from a front end's buttons (issue 25).
        guide.confirmControl = isatty(STDIN_FILENO) != 0 ? .guideConfirmEnter : .guideConfirmButton
        guide.compass = compass
        guide.ownsPlayer = sharedPlayer == nil
        guide.positions = shared?.sharing.updates
        guide.traffic = settings.traffic
        let outcome = await guide.run()
        await shared?.stop()
        await handsFree.close()
        await compass?.release()
        await radio.shutdown()
        switch outcome {
        case .confirmed: return
        case .cancelled: throw CommandLineFailure(book(.cliRideWasCancelled, ["code": .text(ride.handle)]))
        default: throw ExitCode(130)
        }
    }
}

extension GuideLaunch {
    /// The compass turn-to-find follows, said in one line: iio-sensor-proxy's when `--compass auto`
    /// finds the service with a compass, nil (turns are timed) otherwise.
    func openCompass(in book: Phrasebook) async -> (any Compass)? {
        guard compass == .auto else {
            StandardError.writeLine("ridebeacon: " + book(.compassOff))
            return nil
        }
        let (opened, said) = await SensorProxyCompass.auto()
        // One plain sentence in her language (issues 25, 37): the D-Bus reason stays out of the way.
        StandardError.writeLine("ridebeacon: " + (opened == nil ? CompassWords.none(said, in: book) : book(.compassFound)))
        return opened
    }
}

/// The passenger's keys from standard input: single keystrokes when it is a terminal (no Enter
/// needed; RawTerminal), a line at a time otherwise (a pipe, a test): "r" repeat, "d" where is
/// my driver, "f" find the direction, "s" ask the car to tick, "q" quit, Enter (or an empty line) confirms.
enum KeyboardKeys {
    /// Kept for the process's life: one keyboard per process.
    nonisolated(unsafe) private static var signalSources: [any DispatchSourceSignal] = []
    /// Set by SIGINT or SIGTERM (not by the `q` key): the whole command ends, not only the
    /// guide it runs (`passenger follow` went on following for minutes after a SIGTERM that
    /// reached it while it guided, so its systemd unit hung until SIGKILL).
    private static let terminated = Atomic<Bool>(false)
    static var terminationRequested: Bool { terminated.load(ordering: .relaxed) }

    static func stream() -> AsyncStream<GuideKey> {
        let (keys, continuation) = AsyncStream<GuideKey>.makeStream()
        // Ctrl-C and SIGTERM quit like `q`, so the guide ends its way: audio written, radio released.
        // Once per process, and not beside `Signals.next()`: a later signal(SIG_IGN) would undo
        // the handler libdispatch installed for these sources.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signalSources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler {
                terminated.store(true, ordering: .relaxed)
                continuation.yield(.quit)
            }
            source.resume()
            return source
        }
        let thread = Thread {
            if RawTerminal.enterIfTerminal() {
                while let character = RawTerminal.readCharacter() {
                    if let key = GuideKey(character: character) { continuation.yield(key) }
                }
            } else {
                while let line = readLine(strippingNewline: true) {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if let key = trimmed.isEmpty ? GuideKey.confirm : trimmed.first.flatMap(GuideKey.init(character:)) {
                        continuation.yield(key)
                    }
                }
            }
            // End of input is not a quit: the signal sources still deliver one.
        }
        thread.start()
        return keys
    }
}

/// Keys during the wait for a driver (only `q` counts: it ends the wait) and then for the
/// guide, which gets every key from then on.
final class WaitingKeys: Sendable {
    /// Set while waiting for a driver: what `q` and the other keys do then.
    private let waiting = Mutex<(onQuit: (@Sendable () -> Void)?, onWaitingKey: (@Sendable (GuideKey) -> Void)?)>((nil, nil))
    let guideKeys: AsyncStream<GuideKey>

    init(_ keys: AsyncStream<GuideKey>) {
        let (guideKeys, forward) = AsyncStream<GuideKey>.makeStream()
        self.guideKeys = guideKeys
        Task { [self] in
            for await key in keys {
                let waiting = self.waiting.withLock { $0 }
                if let quit = waiting.onQuit {
                    // While waiting the keys are answered here, not saved up for the guide.
                    if key == .quit { quit() } else { waiting.onWaitingKey?(key) }
                    if key != .quit { continue }
                }
                forward.yield(key)
            }
            forward.finish()
        }
    }

    /// Runs `body`, cancelled when `q` (or Ctrl-C) comes first; then nil. Other keys meanwhile
    /// go to `onKey`.
    func untilQuit<T: Sendable>(onKey: @escaping @Sendable (GuideKey) -> Void = { _ in },
                                _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        let task = Task { try await body() }
        waiting.withLock { $0 = ({ task.cancel() }, onKey) }
        defer { waiting.withLock { $0 = (nil, nil) } }
        do { return try await task.value } catch {
            // Cancelled: a sleep's CancellationError, or the client's own `cancelled`.
            if task.isCancelled { return nil }
            throw error
        }
    }
}

/// Sentences about a ride, for printing (and, in the guide, speaking), in `book`'s language.
enum RideWords {
    static func driver(_ party: RideParty, in book: Phrasebook = .english, spoken: Bool = true) -> String {
        vehicle(party, in: book, spoken: spoken).map { book(.rideDriverWithVehicle, ["name": .text(party.name), "vehicle": .text($0)]) } ?? party.name
    }

    /// The car for the ear in `book`'s language ("Toyota Prius azul, matrícula A B 1 2 C D E");
    /// for the eye (`spoken: false`, a list read on a screen) the plate as written; a vehicle
    /// known only as free text is said as written.
    static func vehicle(_ party: RideParty, in book: Phrasebook = .english, spoken: Bool = true) -> String? {
        guard let car = party.vehicleDetails else { return party.vehicle }
        return book.vehicle(colour: car.colour, make: car.make, model: car.model, plate: car.plate, spoken: spoken)
    }

    /// Position along requested → completed; cancelled ends any of them.
    static func progress(_ state: RideState) -> Int {
        switch state {
        case .requested: 0
        case .accepted: 1
        case .arrived: 2
        case .confirmed: 3
        case .completed, .cancelled: 4
        }
    }

    static func state(_ state: RideState, in book: Phrasebook = .english) -> String {
        switch state {
        case .requested: book(.rideStateRequested)
        case .accepted: book(.rideStateAccepted)
        case .arrived: book(.rideStateArrived)
        case .confirmed: book(.rideStateConfirmed)
        case .completed: book(.rideStateCompleted)
        case .cancelled: book(.rideStateCancelled)
        }
    }
}

/// The compass's absence in one plain sentence (issue 25), instead of the D-Bus error.
enum CompassWords {
    static func none(_ said: String, in book: Phrasebook = .english) -> String {
        if said.contains("no system bus") || said.contains("NoServer") || said.contains("socket") { return book(.compassNoService) }
        return said.contains("ServiceUnknown") || said.contains("iio-sensor-proxy") ? book(.compassNoSensor) : book(.compassNoAnswer)
    }
}

/// The audio output's log lines (GuideAudio's `AudioOutput`, `FallbackSink`), read for the one
/// fact she needs: whether any sound is left.
enum GuideSoundWords {
    static func leavesNoSound(_ line: String) -> Bool { line.hasSuffix("audio is off") }
}
