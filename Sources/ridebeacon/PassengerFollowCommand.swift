import ArgumentParser
import BlueZ
import Foundation
import Guide
import GuideAudio
import RideClient

/// `ridebeacon passenger follow`: every change of the passenger's ride, aloud (espeak-ng, like
/// the guide), printed, and as a desktop notification, from the open request to the end.
struct PassengerFollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Hear every change of your ride: accepted, your driver's ETA, arrived, confirmed, cancelled.",
        discussion: """
            Without RIDE, follows your open request or newest active ride. Each change is spoken, \
            printed, and shown as a desktop notification (org.freedesktop.Notifications on the \
            session bus; skipped, once noted, when there is none). Keys, single keystrokes in a \
            terminal or lines on a pipe: r repeats the last announcement, q quits. Ends when the \
            ride is confirmed, completed or cancelled; the audio (--audio-out FILE.wav) is always \
            written, also after q or Ctrl-C.
            """)

    @Argument(help: ArgumentHelp("The ride's short code (default: your open request or active ride).", valueName: "RIDE"))
    var ride: String?
    @Option(name: .customLong("audio-out"), help: ArgumentHelp("FILE.wav, - (raw PCM to standard output), auto or none.", valueName: "OUT"))
    var audioOut = "auto"
    @Flag(name: .customLong("no-notifications"), help: "Do not show desktop notifications.")
    var noNotifications = false
    @OptionGroup var voiceOptions: VoiceOptions
    @OptionGroup var service: ServiceOptions

    func validate() throws {
        guard audioOut == "-" || audioOut == "auto" || audioOut == "none" || audioOut.hasSuffix(".wav") else {
            throw ValidationError("--audio-out must be a .wav file, -, auto or none, not \"\(audioOut)\"")
        }
    }

    func run() async throws {
        var settings: Settings
        do {
            settings = try loadSettings()
            try voiceOptions.apply(to: &settings) { "--" + $0 }
            if let problem = settings.validationError { throw CommandLineFailure(problem) }
        } catch let error as CommandLineFailure {
            StandardError.writeLine("ridebeacon: \(error.message)")
            throw ExitCode(1)
        }
        let sink: any AudioSink
        do { sink = try AudioOutput.open(audioOut) { StandardError.writeLine("ridebeacon: \($0)") } } catch {
            StandardError.writeLine("ridebeacon: \(error.description)")
            throw ExitCode(1)
        }
        var speech: (any SpeechEngine)?
        do { speech = try EspeakSpeech.shared() } catch { StandardError.writeLine("ridebeacon: speech is off: \(error)") }
        let player = LiveCuePlayer(speech: speech, voice: settings.voice, sink: sink) { StandardError.writeLine("ridebeacon: \($0)") }
        player.start()
        var notifications: DesktopNotifications?
        if !noNotifications {
            do { notifications = try await DesktopNotifications.open() } catch {
                StandardError.writeLine("ridebeacon: desktop notifications are off: \(error)")
            }
        }
        let announcer = RideAnnouncer(player: player, notifications: notifications)
        defer {
            // Whatever ended the follow (q, the ride ending, Ctrl-C, an error): the audio is written.
            do { try player.stop() } catch { StandardError.writeLine("ridebeacon: audio: \(error)") }
        }
        try await withService(service, waits: true) { client in
            try await Self.follow(rideArgument: ride, client: client, announcer: announcer)
        }
        await notifications?.close()
    }

    /// Races the ride's events against the keys (Ctrl-C and SIGTERM arrive as `q`: see
    /// KeyboardKeys); the first to end ends both.
    static func follow(rideArgument: String?, client: RideServiceClient, announcer: RideAnnouncer) async throws {
        let keys = KeyboardKeys.stream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let ride = try await resolve(rideArgument, client: client, announcer: announcer)
                try await followEvents(of: ride, client: client, announcer: announcer)
            }
            group.addTask {
                for await key in keys {
                    switch key {
                    case .quit: Say.line("Stopped following."); return
                    case .repeatLast: await announcer.repeatLast()
                    default: break
                    }
                }
                // Input ended (a closed pipe): keep following until the ride ends.
                try await Task.sleep(for: .seconds(365 * 86_400))
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// The ride to follow; while there is only an open request, says so once and waits for a driver.
    static func resolve(_ rideArgument: String?, client: RideServiceClient, announcer: RideAnnouncer) async throws -> Ride {
        if let rideArgument { return try await client.ride(rideArgument) }
        var waitingFor: String?
        while true {
            if let ride = try await client.allRides().last(where: { !$0.state.isFinal }) { return ride }
            let requests = try await client.allRideRequests()
            // The request we announced became a ride that already ended between two looks:
            // follow it anyway, so its end is still told.
            if let waitingFor, let rideID = requests.first(where: { $0.id == waitingFor })?.rideID {
                return try await client.ride(rideID)
            }
            guard let open = requests.last(where: { $0.status == .open }) else {
                throw CommandLineFailure("you have no active ride or open request; request one with `ridebeacon passenger request`")
            }
            if waitingFor != open.id {
                await announcer.announce(RideAnnouncement.waiting(open))
                waitingFor = open.id
            }
            // No passenger event stream exists before a ride does (see PassengerRides.resolve).
            try await Task.sleep(for: .seconds(2))
        }
    }

    static func followEvents(of start: Ride, client: RideServiceClient, announcer: RideAnnouncer) async throws {
        var ride = start
        await announcer.announce(RideAnnouncement.current(ride))
        if ride.state.isFinal || ride.state == .confirmed { return }
        // The stream replays the history first; what happened before `start` was summed up above.
        let summarizedUpTo = max(ride.stateChangedAt, ride.etaGivenAt ?? .distantPast)
        for try await update in client.rideEvents(ride.id) {
            guard case .event(let event) = update, event.at > summarizedUpTo else { continue }
            // The guide's business (touch, locator), not news for a passenger waiting.
            guard event.kind.isStateChange || event.kind == .etaGiven else { continue }
            if event.state != ride.state || event.detail != nil {
                ride = (try? await client.ride(ride.id)) ?? ride
            }
            await announcer.announce(RideAnnouncement.change(event, ride: ride))
            if event.state.isFinal || event.state == .confirmed { return }
        }
    }
}

/// What is said and shown for a ride, in plain sentences with the driver's name first.
enum RideAnnouncement {
    struct Words: Equatable {
        var summary: String
        var body: String
        var spoken: String { summary + ". " + body }
    }

    static func waiting(_ request: RideRequest) -> Words {
        Words(summary: "Waiting for a driver", body: "Ride \(ShortCode.spoken(request.handle)), from \(request.pickup) to \(request.dropoff).")
    }

    static func current(_ ride: Ride) -> Words {
        change(state: ride.state, detail: ride.state == .accepted ? ride.etaMinutes.map { ETAText.detail(minutes: $0) } : nil, ride: ride)
    }

    static func change(_ event: RideEvent, ride: Ride) -> Words {
        change(state: event.state, detail: event.detail, ride: ride)
    }

    private static func change(state: RideState, detail: String?, ride: Ride) -> Words {
        let driver = RideWords.driver(ride.driver)
        let code = "Ride \(ShortCode.spoken(ride.handle))."
        switch state {
        case .requested:
            return Words(summary: "Waiting for a driver", body: code)
        case .accepted:
            if let minutes = detail.flatMap(ETAText.minutes(fromDetail:)) {
                let when = minutes == 0 ? "is at the pickup now" : minutes == 1 ? "will be there in 1 minute" : "will be there in \(minutes) minutes"
                return Words(summary: "\(ride.driver.name) \(when)", body: "\(driver). \(code)")
            }
            return Words(summary: "\(ride.driver.name) is on the way", body: "\(driver). \(code)")
        case .arrived:
            return Words(summary: "\(ride.driver.name) has arrived", body: "\(driver). Start the guide: ridebeacon passenger guide.")
        case .confirmed:
            return Words(summary: "Ride confirmed", body: "You found \(ride.driver.name)'s car. \(code)")
        case .completed:
            return Words(summary: "Ride completed", body: code)
        case .cancelled:
            return Words(summary: "Ride cancelled", body: (detail.map { "Reason: \($0). " } ?? "") + code)
        }
    }
}

/// Says, prints and notifies; one notification per ride, replaced as the ride changes.
actor RideAnnouncer {
    private let player: LiveCuePlayer
    private let notifications: DesktopNotifications?
    private var notificationID: UInt32 = 0
    private var last: RideAnnouncement.Words?
    private var notificationFailureReported = false

    init(player: LiveCuePlayer, notifications: DesktopNotifications?) {
        self.player = player
        self.notifications = notifications
    }

    func announce(_ words: RideAnnouncement.Words) async {
        guard words != last else { return }
        last = words
        Say.line(words.spoken)
        player.say(SinkText.speech(words.spoken), urgent: true)
        guard let notifications else { return }
        do {
            notificationID = try await notifications.notify(summary: SinkText.notificationSummary(words.summary),
                                                            body: SinkText.notificationBody(words.body), replacing: notificationID)
        } catch {
            if !notificationFailureReported { StandardError.writeLine("ridebeacon: desktop notification failed: \(error)") }
            notificationFailureReported = true
        }
    }

    func repeatLast() {
        guard let last else { return }
        Say.line(last.spoken)
        player.say(SinkText.speech(last.spoken), urgent: true)
    }
}
