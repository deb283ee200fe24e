import ArgumentParser
import BeaconCore
import BlueZ
import RadioCore
import RideSession
import Foundation
import Guide
import GuideAudio
import Phrasebook
import RideClient
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// `ridebeacon driver arrive RIDE`: marks the ride arrived, advertises the ride's rotating
/// driver identity, and posts the driver's touch proof when the passenger's beacon touches.
struct DriverArriveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "arrive",
        abstract: "Tell the passenger you have arrived, and advertise the ride's beacon until the ride is confirmed.",
        discussion: """
            Marks the ride arrived, then advertises the ride's rotating beacon identity on --radio, \
            switching to the next identity at every slot boundary. It also listens for the \
            passenger's beacon: when the two devices touch it says "Touch detected" and, after you \
            press Enter (or at once with --auto-confirm), sends the touch proof.
            When the passenger asks for a sound to find the car by (key s in `passenger guide`, \
            or the guide by itself), it tells you, printed and aloud, what to do, chosen by how far \
            the passenger is and what --locator-sounds allows: two short taps on the horn, call \
            the passenger's name from the kerb or through the open window; press y once done (s in \
            Spanish, o in French), or n if you can't (the passenger is told of the sound only after yes). Near, with \
            `device` allowed, this device ticks once a second on --audio-out instead, and the \
            passenger is told only once the ticks reached an audio output.
            When the passenger asks you to come to her (her phone cannot guide her, or she chose \
            to wait), it tells you at once, lets her phone know it has the request, and waits for \
            your answer: c you are coming, l you cannot leave the car; she is told your answer \
            only once it reached the ride service.
            Keys: Enter confirms a touch, y / n (s / n, o / n) answer a sound request, c tells the passenger \
            you are walking to them, l that you cannot leave the car (to her come request), x \
            that the car is across the street (you go round), w shows and says the ride word (in \
            the passenger's language, the words her phone says).
            Every line is in your language: --language, the saved setting, else your account's.
            Its satellite position (GeoClue with --positions auto, or --position LAT,LON[,ACC]) \
            is shared with the passenger's phone until the ride is confirmed; the report at the \
            arrival carries the course the car came in on, so her guide knows its kerb side. \
            With --approach it is shared from the start of the drive to the pickup, and the ride \
            is marked arrived when you press Enter once parked.
            Ends when the ride is confirmed (exit 0) or cancelled (exit 1), or on Ctrl-C.
            If the ride service cannot be reached it says "Cannot reach the ride service, \
            retrying", keeps advertising and keeps trying.
            """)

    @Argument(help: ArgumentHelp("The ride's short code (or id), from `ridebeacon driver accept`.", valueName: "RIDE"))
    var ride: String
    @Option(help: ArgumentHelp("The radio: bluez[:hci0], hci:hci0, h4:tcp:HOST:PORT, h4:unix:PATH, h4:tty:DEVICE[:BAUD] or sim.", valueName: "RADIO"))
    var radio: String
    @Option(name: .customLong("interval-ms"), help: ArgumentHelp("Advertising interval, 20 to 10240 milliseconds.", valueName: "MS"))
    var intervalMilliseconds = 100
    @Option(name: .customLong("measured-power"), parsing: .unconditional,
            help: ArgumentHelp("This transmitter's RSSI at 1 metre, dBm, for example -59: in the frame until the radio reports its power (then that power's level).",
                               valueName: "DBM"))
    var measuredPower: Int8 = -59
    @Option(name: .customLong("adv-type"), help: ArgumentHelp("nonconn (default), conn or scannable.", valueName: "TYPE"))
    var advertisingType = "nonconn"
    @Option(name: .customLong("identity-period"),
            help: ArgumentHelp("Identity slot period in seconds (10 to 900), used only when the ride service does not send one.",
                               valueName: "S"))
    var identityPeriod = RotatingIdentity.defaultPeriod
    @Option(help: ArgumentHelp("Calibration JSON from `ridebeacon calibrate`, for the touch threshold.", valueName: "FILE"))
    var calibration: String?
    @Option(name: .customLong("touch-rssi"), parsing: .unconditional,
            help: ArgumentHelp("Touch threshold in dBm, overriding the calibration.", valueName: "DBM"))
    var touchRSSI: Double?
    @Flag(name: .customLong("approach"),
          help: "Share your position on the way to the pickup, and mark the ride arrived when you press Enter once parked.")
    var approach = false
    @Flag(name: .customLong("auto-confirm"), help: "Send the touch proof without waiting for Enter.")
    var autoConfirm = false
    @Option(name: .customLong("audio-out"),
            help: ArgumentHelp("Where the locator sound goes: FILE.wav, - (raw PCM on stdout), auto (system player) or none.",
                               valueName: "OUT"))
    var audioOut = "auto"
    @Option(name: .customLong("locator-sounds"),
            help: ArgumentHelp("Sounds you may be asked to make, comma-separated: horn, voice, device (the deployment's rule; horn only where lawful).",
                               valueName: "LIST"))
    var locatorSounds = "horn,voice,device"
    @OptionGroup var positions: PositionOptions
    @OptionGroup var service: ServiceOptions

    func validate() throws {
        do { _ = try LocatorSoundName.list(parsing: locatorSounds) } catch { throw ValidationError("--locator-sounds: \(error)") }
        _ = try parseRadio(radio)
        guard (20...10_240).contains(intervalMilliseconds) else { throw ValidationError("--interval-ms must be 20 to 10240") }
        guard AdvertisingKind(rawValue: advertisingType) != nil else { throw ValidationError("--adv-type must be nonconn, conn or scannable") }
        guard RotatingIdentity.periodRange.contains(identityPeriod) else {
            throw ValidationError("--identity-period must be 10 to 900 seconds, not \(identityPeriod)")
        }
        if let touchRSSI, !(-127...20).contains(touchRSSI) { throw ValidationError("--touch-rssi must be -127 to 20 dBm") }
        do { _ = try AudioOutput(parsing: audioOut) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let selection = try RadioSelection(parsing: radio)
        let touch: Calibration
        do { touch = try touchCalibration() } catch {
            StandardError.writeLine("ridebeacon: \(error.message)")
            throw ExitCode(1)
        }
        try await withService(service, waits: true) { client in
            try await meet(client: client, radio: selection, touch: touch, device: .process)
        }
    }

    /// What `driver arrive` takes from the device it runs on: the process's own in `run`; a
    /// test's in RideBeaconCLIUnitTests, which runs the flow in process.
    struct Device: Sendable {
        /// The saved settings (their language), nil when none can be read.
        var settings: @Sendable () -> Settings?
        /// The keyboard, opened when the flow first needs it; yes and no in the book's language.
        var keys: @Sendable (Phrasebook) -> DriverKeys
        /// Returns when the driver stops the command (SIGINT, SIGTERM).
        var interrupted: @Sendable () async -> Void
        var openRadio: @Sendable (RadioSelection) async throws -> any Radio
        /// The desktop's notifications of the passenger's messages (nil: none).
        var notifications: @Sendable () async -> DesktopNotifications?

        static let process = Device(settings: { try? loadSettings() }, keys: { DriverKeys.open(in: $0) }, interrupted: { await Signals.next() },
                                    openRadio: { try await RideBeaconCLI.openRadio($0) },
                                    notifications: { try? await DesktopNotifications.open() })
    }

    /// The flow once the ride service answers: arrive, advertise and listen until the ride is
    /// confirmed (a line, and back), cancelled or failed (thrown), or interrupted (exit 130).
    func meet(client: any RideCommandService, radio selection: RadioSelection, touch: Calibration, device: Device) async throws {
        // The driver's device speaks the driver's language: the saved setting, else his account's.
        let book = await DeviceLanguage.book(settings: device.settings(), using: client)
        // The position is shared from before the arrival (issue 35), so the report at the
        // arrival can carry the course the car came in on.
        let shared = positions.choice == .off ? nil
            : await DevicePositions.start(positions.choice, rideID: try await client.ride(ride).id, side: .driver, service: client)
        // --approach: shared while he drives; Enter once parked (or no keyboard) arrives.
        let earlyKeys = approach ? device.keys(book) : nil
        if let earlyKeys { await Self.parked(earlyKeys, in: book) }
        let arrived: Ride
        do { arrived = try await arrive(client) } catch {
            await shared?.stop()
            throw error
        }
        shared?.sharing.arrived()
        guard let key = arrived.rideKey else { throw CommandLineFailure(book(.driverNoRideKey, ["code": .text(arrived.handle)])) }
        let identity: RotatingIdentity
        do { identity = try key.identity(fallbackPeriod: identityPeriod) } catch {
            throw CommandLineFailure("ride \(ride): \(error)")
        }
        Say.line(book(.driverArrived, ["code": .text(arrived.handle), "name": .text(arrived.passenger.name)]))
        let meeting = DriverMeeting(passengerName: arrived.passenger.name, sounds: (try? LocatorSoundName.list(parsing: locatorSounds)) ?? [],
                                    rideWord: SharedRideWord.phrase(arrived, key: key.bytes), notes: arrived.accessibilityNotes)
        let radio = try await device.openRadio(selection)
        let template = BeaconAdvertisement(beacon: IBeacon(uuid: UUID(), major: 0, minor: 0, measuredPower: measuredPower),
                                           intervalMilliseconds: intervalMilliseconds,
                                           type: AdvertisingKind(rawValue: advertisingType) ?? .nonConnectable)
        var voice = VoiceSettings.standard
        voice.voice = book.language.espeakVoice
        let locator = LocatorOutput(audioOut: audioOut, voice: voice, book: book)
        defer { locator.close() }
        let driverKeys = earlyKeys ?? device.keys(book)
        var session = DriverSession(
            rideID: arrived.id, identity: identity, calibration: touch, autoConfirm: autoConfirm, radio: radio,
            template: template, service: client, clock: SystemClock(),
            confirmations: driverKeys.confirmations(autoConfirm: autoConfirm),
            say: { line in
                Say.line(line)
                // Spoken too: the driver may be outside the car, away from the screen.
                if DriverArriveCommand.spoken(line, in: book) { locator.speak(line) }
            },
            log: { [verbose = service.verbose] line in DriverArriveCommand.log(line, verbose: verbose, in: book) },
            locator: { locator.play($0) },
            locatorPlayed: { await locator.played() },
            keys: driverKeys.others, meeting: meeting, distanceBounds: Self.bounds(touch),
            claims: { var claims = DriverDistanceClaims(calibration: touch); claims.book = book; return claims }(), book: book)
        // Where she is by satellite, told to him until the radio ranges her (issue 35).
        session.positions = shared?.sharing.updates
        let outcome = await withTaskGroup(of: DriverCore.Outcome?.self) { group in
            group.addTask { [session] in await session.run() }
            group.addTask { await device.interrupted(); return nil }
            // The passenger's messages (issue 25), said and shown as they come, in his language; never ends by itself.
            group.addTask {
                await DriverMessages.follow(rideID: arrived.id, passenger: arrived.passenger.name, client: client, book: book,
                                            notifications: await device.notifications()) { words in
                    Say.line(words)
                    locator.speak(words)
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        try? await radio.stopAdvertising()
        await radio.shutdown()
        await shared?.stop()
        switch outcome {
        case .confirmed:
            Say.line(book(.rideStateConfirmed))
            if let how = await Self.confirmedHow(arrived, using: client, in: book) { Say.line(how) }
        case .completed: Say.line(book(.rideStateCompleted))
        case nil: throw ExitCode(130)
        case .cancelled: throw CommandLineFailure(book(.driverRideCancelled, ["code": .text(arrived.handle)]))
        case .failed(let message): throw CommandLineFailure(message)
        }
    }

    /// How the ride was confirmed, for the driver (issue 37, point 8: a ride word she gave
    /// reached him with no sign): read from the ride's `confirmed` event as `passenger rides`
    /// reads it; nil when the history does not tell within `patience` (the line is not worth a
    /// longer wait once the ride is confirmed).
    static func confirmedHow(_ ride: Ride, using client: any RideCommandService, in book: Phrasebook,
                             patience: Duration = .seconds(3)) async -> String? {
        let way = await withTaskGroup(of: RideConfirmationWay??.self) { group in
            group.addTask { .some(await RideHistory.confirmationWay(of: ride, using: client)) }
            group.addTask {
                try? await Task.sleep(for: patience)
                return .none
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
        switch way {
        case .rideWord: return book(.driverConfirmedByRideWord, ["name": .text(ride.passenger.name)])
        case .touch: return book(.driverConfirmedByTouch, ["name": .text(ride.passenger.name)])
        case .operator: return book(.driverConfirmedByOperator)
        case nil: return nil
        }
    }

    /// `--approach`: waits for Enter, or the end of the keyboard's input. Ctrl-C meanwhile ends
    /// the process as before any command took the signal (GeoClue drops a client whose
    /// connection closed); `Signals.next()` is left for the session, which takes it once.
    static func parked(_ keys: DriverKeys, in book: Phrasebook = .english) async {
        StandardError.writeLine("ridebeacon: " + book(.driverParkedPressEnter))
        var enter = keys.enter.makeAsyncIterator()
        _ = await enter.next()
    }

    /// The session's log lines, for the driver: the beacon's identity (ids, major, minor, slot)
    /// only with --verbose; otherwise one plain sentence the first time.
    static func log(_ line: String, verbose: Bool, in book: Phrasebook = .english) {
        if line.hasPrefix("advertising driver identity") {
            if verbose { StandardError.writeLine("ridebeacon: \(line)") } else if !advertisingTold.swap() {
                StandardError.writeLine("ridebeacon: " + book(.driverSendingSignal))
            }
            return
        }
        StandardError.writeLine("ridebeacon: \(line)")
    }

    private static let advertisingTold = OnceFlag()

    /// Lines the driver's device speaks as well as prints: what to do, not the touch's progress
    /// (the driver is at the screen for Enter).
    static func spoken(_ line: String, in book: Phrasebook = .english) -> Bool {
        !DriverPhrase.allCases.contains { $0.text(in: book) == line } || line == DriverPhrase.passengerLookingForCar.text(in: book)
    }

    /// The passenger's distance bounds from the guide's own claim code (`DistanceUncertainty`).
    static func bounds(_ calibration: Calibration) -> @Sendable (RangeEstimate) -> (low: Double, high: Double) {
        let uncertainty = DistanceUncertainty(calibration: calibration)
        let model = calibration.model
        return { estimate in
            let bounds = uncertainty.bounds(level: estimate.filteredRSSI, model: model)
            return (bounds.low, bounds.high)
        }
    }

    /// Arrives; if this ride is already `arrived` (the command was restarted) carries on.
    private func arrive(_ client: any RideCommandService) async throws -> Ride {
        do {
            return try await client.arrive(ride, idempotencyKey: IdempotencyKey())
        } catch {
            // (A `catch .rejected(let p) where` pattern here crashes Swift 6.3.1's SILGen.)
            guard case .rejected(let problem) = error, problem.code == .illegalTransition, problem.state == .arrived else { throw error }
            return try await client.ride(ride)
        }
    }

    private func touchCalibration() throws(CommandLineFailure) -> Calibration {
        var result = Calibration(model: .default)
        if let calibration {
            let bytes = try readFile(calibration)
            do { result = try Calibration.parse(json: bytes) } catch { throw CommandLineFailure("\(calibration): \(error)") }
        }
        if let touchRSSI { result.touchRSSI = touchRSSI }
        return result
    }
}

/// The driver's device's audio, opened on the first locator request (a ride that needs no
/// locator never opens a player): the announcement, then the ticks. Speech and the closing
/// drain run outside the lock; opening the output happens under it, once.
final class LocatorOutput: Sendable {
    private let audioOut: String
    /// The driver's language's espeak-ng voice.
    private let voice: VoiceSettings
    /// The driver's language, for what is missing.
    private let book: Phrasebook
    private struct State {
        var ticker: LocatorTicker?
        var announcement: String?
        var reporting: PlaybackReportingSink?
        /// Sounding samples written before the latest ticks started.
        var startedAt = 0
    }
    private let state = Mutex(State())

    init(audioOut: String, voice: VoiceSettings = .standard, book: Phrasebook = .english) {
        self.audioOut = audioOut
        self.voice = voice
        self.book = book
    }

    /// Spoken before the next ticks start.
    func announce(_ text: String) { state.withLock { $0.announcement = text } }

    /// Spoken now (the instruction for a sound, the ride word).
    /// Says `text`; the ticker speaks only through the speech cleanup (`SpokenText`), so a
    /// passenger's message is never read out as written.
    func speak(_ text: String) {
        let ticker = state.withLock { state in opened(&state) }
        ticker?.say(text)
    }

    /// After the ticks start: nil once sounding samples reached an audio output, else why not.
    /// Waits for the first tick to be rendered (the player renders ahead by its lookahead).
    func played() async -> String? {
        let (reporting, before) = state.withLock { ($0.reporting, $0.startedAt) }
        guard let report = reporting else { return "no audio output could be opened" }
        for _ in 0..<30 {
            if report.playedSince(before) == nil { return nil }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return report.playedSince(before)
    }

    func play(_ sound: DriverCore.LocatorSound) {
        switch sound {
        case .start(let seconds):
            let started = state.withLock { state -> (LocatorTicker, String?)? in
                guard let ticker = opened(&state) else { return nil }
                state.startedAt = state.reporting?.soundingSamples ?? 0
                defer { state.announcement = nil }
                return (ticker, state.announcement)
            }
            if let (ticker, announcement) = started { ticker.start(seconds: seconds, announcement: announcement) }
        case .stop:
            state.withLock { $0.ticker }?.stop()
        }
    }

    func close() {
        let ticker = state.withLock { state in
            defer { state.ticker = nil }
            return state.ticker
        }
        do { try ticker?.close() } catch { StandardError.writeLine("ridebeacon: audio: \(error)") }
    }

    /// The ticker, opened on first use (with the lock held: one output, however many callers).
    private func opened(_ state: inout State) -> LocatorTicker? {
        if let ticker = state.ticker { return ticker }
        let report: @Sendable (String) -> Void = { StandardError.writeLine("ridebeacon: \($0)") }
        let sink: PlaybackReportingSink
        do { sink = PlaybackReportingSink(try AudioOutput.open(audioOut, log: report)) } catch {
            report(book(.driverSoundOff, ["reason": .text("\(error)")]))
            return nil
        }
        state.reporting = sink
        var speech: (any SpeechEngine)?
        do { speech = try EspeakSpeech.shared() } catch { report(book(.driverSpeechOff, ["reason": .text("\(error)")])) }
        let ticker = LocatorTicker(player: LiveCuePlayer(speech: speech, voice: voice, sink: sink, log: report))
        state.ticker = ticker
        return ticker
    }
}

/// A flag set once: `swap()` answers whether it was already set.
final class OnceFlag: Sendable {
    private let set = Mutex(false)

    func swap() -> Bool {
        set.withLock { set in
            defer { set = true }
            return set
        }
    }
}
