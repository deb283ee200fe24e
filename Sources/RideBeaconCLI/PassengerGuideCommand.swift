import ArgumentParser
import BeaconCore
import RadioCore
import Foundation
import Guide
import GuideAudio
import RideClient
import Phrasebook

/// `ridebeacon passenger guide [RIDE]`: waits for the driver, then guides the passenger to the
/// car by sound. Settings come from the settings file; these flags override it for one run.
struct PassengerGuideCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guide",
        abstract: "Wait for your driver and be guided to the car by sound.",
        discussion: """
            Without RIDE, guides you on your newest ride that has not ended, waiting for a driver \
            to accept your open request if there is no ride yet. Voice, rate, pitch, volume, \
            verbosity and language default to the settings file (ridebeacon settings show); the \
            flags here override it for this run only.
            Audio goes to --audio-out: a .wav file, - for raw PCM on standard output, auto for \
            the system player, or none.
            If the ride service cannot be reached, you hear "Cannot reach the ride service, \
            retrying" and the guide keeps trying.
            Keys are single keystrokes in a terminal, no Enter needed (one a line when standard \
            input is a pipe): r repeat, d where is my driver, s ask the car to sound its \
            locator ticks (the guide also asks by itself near the car when the direction is \
            unsure), f find the direction by turning on the spot, w the ride word, q quit, \
            Enter (an empty line when piped) confirms after "Touch detected".
            --haptics on|off|only (saved by `ridebeacon settings set --haptics`) vibrates \
            through feedbackd beside the sounds, not at all, or instead of them (only: silent \
            guidance; the sentences are still printed). Without feedbackd this is said once \
            and guiding goes on with sound.
            --voice-commands listens (PipeWire, PulseAudio or ALSA; --voice-input FILE for a \
            recording) for English commands: "repeat that", "where is my car", "play the \
            sound", "what can I say" (help), and "cancel my ride", which cancels only after \
            you say "yes, cancel my ride".
            With --compass auto a turn follows iio-sensor-proxy's compass heading when the \
            device has one; otherwise (and with off) the turn is timed.
            With --positions auto (GeoClue) or --position LAT,LON[,ACC] your position is shared \
            with the driver's device until the ride is confirmed, and the car's comes back.
            """)

    @Argument(help: ArgumentHelp("The ride id (default: your newest active ride).", valueName: "RIDE"))
    var ride: String?
    @Option(help: ArgumentHelp("The radio to scan with: bluez, hci:hci0, h4:tcp:HOST:PORT, h4:unix:PATH, h4:tty:DEVICE or sim.",
                               valueName: "RADIO"))
    var radio = "bluez"
    @Option(name: .customLong("audio-out"), help: ArgumentHelp("FILE.wav, - (raw PCM to standard output), auto or none.", valueName: "OUT"))
    var audioOut = "auto"
    @OptionGroup var voiceOptions: VoiceOptions
    @OptionGroup var handsFree: HandsFreeOptions
    @Option(name: .customLong("identity-period"),
            help: ArgumentHelp("Identity slot period in seconds (10 to 900), used only when the ride service does not send one.",
                               valueName: "S"))
    var identityPeriod = RotatingIdentity.defaultPeriod
    @Option(help: ArgumentHelp("Calibration JSON from `ridebeacon calibrate` for this phone pair (path loss and touch threshold).",
                               valueName: "FILE"))
    var calibration: String?
    @Option(name: .customLong("touch-rssi"), parsing: .unconditional,
            help: ArgumentHelp("Touch threshold, dBm, overriding the calibration's.", valueName: "DBM"))
    var touchRSSI: Double?
    @Option(help: ArgumentHelp("Compass for turn-to-find: auto (iio-sensor-proxy's, when it has one) or off (time the turn).",
                               valueName: "auto|off"))
    var compass = CompassChoice.auto
    @OptionGroup var positions: PositionOptions
    @OptionGroup var service: ServiceOptions

    func validate() throws {
        _ = try parseRadio(radio)
        guard RotatingIdentity.periodRange.contains(identityPeriod) else {
            throw ValidationError("--identity-period must be 10 to 900 seconds, not \(identityPeriod)")
        }
        guard audioOut == "-" || audioOut == "auto" || audioOut == "none" || audioOut.hasSuffix(".wav") else {
            throw ValidationError("--audio-out must be a .wav file, -, auto or none, not \"\(audioOut)\"")
        }
    }

    /// The settings file with this run's flags applied, validated.
    func effectiveSettings() throws(CommandLineFailure) -> Settings {
        var settings = try loadSettings()
        try voiceOptions.apply(to: &settings) { "--" + $0 }
        if let problem = settings.validationError { throw CommandLineFailure(problem) }
        return settings
    }

    func run() async throws {
        var settings: Settings
        do { settings = try effectiveSettings() } catch {
            StandardError.writeLine("ridebeacon: \(error.message)")
            throw ExitCode(1)
        }
        // --language, else the saved setting, else the passenger's account, else English.
        await DeviceLanguage.apply(to: &settings, flag: voiceOptions.language, service: service)
        let chosen = settings
        let selection = try RadioSelection(parsing: radio)
        var ranging = Calibration(model: .default)
        if let calibration {
            do {
                ranging = try Calibration.parse(json: try readFile(calibration))
            } catch let error as CommandLineFailure {
                StandardError.writeLine("ridebeacon: \(error.message)")
                throw ExitCode(1)
            } catch {
                StandardError.writeLine("ridebeacon: \(calibration): \(error)")
                throw ExitCode(1)
            }
        }
        if let touchRSSI { ranging.touchRSSI = touchRSSI }
        // No microphone for --voice-commands: said now, in her language, not at the arrival (issue 37, point 13).
        let (voiceInput, microphoneNotice) = HandsFreeOptions.checked(handsFree.input, book: Phrasebook(chosen.phraseLanguage))
        if let microphoneNotice { Say.line(microphoneNotice) }
        let keys = WaitingKeys(KeyboardKeys.stream())
        let rideArgument = ride
        try await withService(service, waits: true) { client in
            guard let ride = try await keys.untilQuit(onKey: PassengerRides.answerWhileWaiting, {
                try await PassengerRides.resolve(rideArgument, client: client)
            }) else {
                Say.line(Phrasebook(chosen.phraseLanguage)(.cliStoppedWaiting))
                throw ExitCode(130)
            }
            let launch = GuideLaunch(client: client, ride: ride, settings: chosen, radio: selection,
                                     audioOut: audioOut, fallbackIdentityPeriod: identityPeriod, calibration: ranging, keys: keys.guideKeys,
                                     compass: compass, voiceInput: voiceInput, positions: positions.choice,
                                     spokenNotices: microphoneNotice.map { [$0] } ?? [])
            try await launch.run()
        }
    }
}

/// `--compass`: whether turn-to-find may use the device's compass.
enum CompassChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// iio-sensor-proxy's compass when the service is there and has one; timing otherwise.
    case auto
    /// Always time the turn.
    case off
}

/// Finding the passenger's ride when none is named.
enum PassengerRides {
    /// `r` and `d` before a driver has accepted: the guide has nothing to say yet, so the
    /// answer is printed (a screen reader reads it) rather than held for later.
    @Sendable static func answerWhileWaiting(_ key: GuideKey) {
        switch key {
        case .repeatLast: Say.line(PersonalBook.current(.cliWaitingForAccept))
        case .whereIsDriver: Say.line(PersonalBook.current(.cliNoDriverYet))
        default: Say.line(PersonalBook.current(.cliWaitingQStops))
        }
    }

    static func resolve(_ rideID: String?, client: RideServiceClient) async throws -> Ride {
        if let rideID { return try await client.ride(rideID) }
        var announced = false
        while true {
            if let ride = try await client.allRides().last(where: { !$0.state.isFinal }) { return ride }
            guard try await client.allRideRequests().contains(where: { $0.status == .open }) else {
                throw CommandLineFailure(await PersonalBook.book(using: client)(.cliNoRideToFollow))
            }
            if !announced {
                Say.line(PersonalBook.current(.cliWaitingForAccept))
                announced = true
            }
            // Passengers have no event stream before a ride exists; a driver's acceptance is
            // rare enough that asking every 2 s costs nothing.
            try await Task.sleep(for: .seconds(2))
        }
    }
}
