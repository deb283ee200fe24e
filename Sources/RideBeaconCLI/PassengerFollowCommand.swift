import ArgumentParser
import BeaconCore
import BlueZ
import Foundation
import RadioCore
import Guide
import VoiceCommands
import GuideAudio
import Phrasebook
import RideClient
import Synchronization

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
            ride is completed or cancelled (it stays after the confirmation, to say the ride \
            completed). When someone else cancels your request or ride, it says who and why, \
            and Enter asks for the same ride again; the audio (--audio-out FILE.wav) is always \
            written, also after q or Ctrl-C.
            When the driver arrives it starts the guide on --radio by itself (the keys are then \
            the guide's, as in `passenger guide`; q stops the guide, a second q following), \
            which ends when the ride is confirmed or cancelled. Without a radio (--radio none, or \
            one that cannot be opened) it says in one sentence what to do and asks the driver \
            for a sound.
            While the guide runs, your position (--positions auto: GeoClue; or --position \
            LAT,LON[,ACC]) is shared with the driver's device and the car's comes back.
            """)

    @Argument(help: ArgumentHelp("The ride's short code (default: your open request or active ride).", valueName: "RIDE"))
    var ride: String?
    @Option(name: .customLong("audio-out"), help: ArgumentHelp("FILE.wav, - (raw PCM to standard output), auto or none.", valueName: "OUT"))
    var audioOut = "auto"
    @Flag(name: .customLong("no-notifications"), help: "Do not show desktop notifications.")
    var noNotifications = false
    @Option(help: ArgumentHelp("The radio the guide uses on arrival: bluez, hci:hci0, h4:..., sim, or none (no guide).",
                               valueName: "RADIO"))
    var radio = "bluez"
    @Option(name: .customLong("identity-period"),
            help: ArgumentHelp("Identity slot period in seconds (10 to 900), used only when the ride service does not send one.",
                               valueName: "S"))
    var identityPeriod = RotatingIdentity.defaultPeriod
    @OptionGroup var voiceOptions: VoiceOptions
    @OptionGroup var handsFree: HandsFreeOptions
    @OptionGroup var positions: PositionOptions
    @OptionGroup var service: ServiceOptions

    func validate() throws {
        if radio != "none" { _ = try parseRadio(radio) }
        guard RotatingIdentity.periodRange.contains(identityPeriod) else {
            throw ValidationError("--identity-period must be 10 to 900 seconds, not \(identityPeriod)")
        }
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
        // --language, else the saved setting, else the passenger's account, else English.
        await DeviceLanguage.apply(to: &settings, flag: voiceOptions.language, service: service)
        // What she hears, sees and says through, opened now: anything missing is said at the
        // start, in her language, in one sentence each (issue 37, point 13).
        let outputs: FollowOutputs
        do {
            outputs = try await FollowOutputs.open(audioOut: audioOut, noNotifications: noNotifications, voice: settings.speakingVoice,
                                                   voiceInput: handsFree.input, book: Phrasebook(settings.phraseLanguage),
                                                   verbose: service.verbose)
        } catch {
            StandardError.writeLine("ridebeacon: \(error.message)")
            throw ExitCode(1)
        }
        let (player, notifications, announcer) = (outputs.player, outputs.notifications, outputs.announcer)
        defer {
            // Whatever ended the follow (q, the ride ending, Ctrl-C, an error): the audio is written.
            do { try player.stop() } catch { StandardError.writeLine("ridebeacon: audio: \(error)") }
        }
        let guide = FollowGuide(radio: radio == "none" ? nil : try RadioSelection(parsing: radio), settings: settings,
                                audioOut: audioOut, identityPeriod: identityPeriod, player: player)
        guide.voiceInput = outputs.voiceInput
        guide.positions = positions.choice
        guide.verbose = service.verbose
        try await withService(service, waits: true) { client in
            try await Self.follow(rideArgument: ride, client: client, announcer: announcer, guide: guide, keys: KeyboardKeys.stream())
        }
        await notifications?.close()
    }

    /// Races the ride's events against the keys (`KeyboardKeys.stream()`: Ctrl-C and SIGTERM
    /// arrive as `q`); the first to end ends both.
    static func follow(rideArgument: String?, client: any RideCommandService, announcer: RideAnnouncer, guide: FollowGuide? = nil,
                       keys: AsyncStream<GuideKey>, poll: Duration = requestPoll) async throws {
        let offer = AskAgainOffer()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var argument = rideArgument
                while true {
                    let ride = try await resolve(argument, client: client, announcer: announcer, offer: offer, poll: poll)
                    // Someone else cancelled and Enter asked again: follow the new request.
                    guard try await followEvents(of: ride, client: client, announcer: announcer, guide: guide, offer: offer) else { return }
                    argument = nil
                }
            }
            group.addTask {
                for await key in keys {
                    // While the guide runs, the keys are its own.
                    if let guide, guide.forward(key) { continue }
                    // Without a radio at the kerb: s asks for a sound, w the ride word (issue 37, point 8).
                    if let guide, await guide.kerb.key(key) { continue }
                    if key == .confirm, offer.accept() { continue }
                    switch key {
                    case .quit: Say.line(announcer.book(.followStopped)); return
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

    /// How often an open request is looked at again: no passenger event stream exists before a
    /// ride does (see PassengerRides.resolve).
    static let requestPoll = Duration.seconds(2)

    /// The ride to follow; while there is only an open request, says so once and waits for a driver.
    static func resolve(_ rideArgument: String?, client: any RideCommandService, announcer: RideAnnouncer,
                        offer: AskAgainOffer? = nil, poll: Duration = requestPoll) async throws -> Ride {
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
                // The request we waited on was cancelled by someone else (a dispatcher): say who
                // and why, and offer to ask again in one key.
                if let waited = waitingFor, let gone = requests.first(where: { $0.id == waited }), gone.status == .cancelled {
                    let sentence = CancellationWords.requestCancelled(gone.cancellation, in: announcer.book)
                    guard let offer else { throw CommandLineFailure(sentence) }
                    offer.open()
                    await announcer.announce(RideAnnouncement.Words(summary: announcer.book(.followCancelledSummary),
                                                                    body: sentence + " " + CancellationWords.offer(in: announcer.book)))
                    guard await offer.wait() else { throw CancellationError() }
                    let again = try await askAgain(gone, client: client)
                    await announcer.announce(RideAnnouncement.Words(summary: announcer.book(.followWaitingSummary),
                                                                    body: CancellationWords.askedAgain(again, in: announcer.book)))
                    waitingFor = again.id
                    continue
                }
                throw CommandLineFailure(announcer.book(.cliNoRideToFollow))
            }
            if waitingFor != open.id {
                await announcer.announce(RideAnnouncement.waiting(open, in: announcer.book))
                waitingFor = open.id
            }
            try await Task.sleep(for: poll)
        }
    }

    /// The same ride again, as a new request (the one-key offer after someone else cancelled).
    static func askAgain(_ request: RideRequest, client: any RideCommandService) async throws -> RideRequest {
        try await client.createRideRequest(NewRideRequest(passengerName: request.passengerName, pickup: request.pickup,
                                                          dropoff: request.dropoff, accessibilityNotes: request.accessibilityNotes),
                                           idempotencyKey: IdempotencyKey())
    }

    /// Follows until the ride completes or is cancelled; true when, after someone else
    /// cancelled it, the passenger asked for the same ride again (then follow that request).
    @discardableResult
    static func followEvents(of start: Ride, client: any RideCommandService, announcer: RideAnnouncer, guide: FollowGuide? = nil,
                             offer: AskAgainOffer? = nil) async throws -> Bool {
        var ride = start
        // No sentence about a come request outlives the follow.
        defer { guide?.kerb.stop() }
        // At the kerb the radio is opened before anything is said, so the one sentence is true.
        let guidingAtStart = ride.state == .arrived ? await guide?.prepare() ?? false : false
        await announcer.announce(RideAnnouncement.current(ride, guiding: guidingAtStart, in: announcer.book))
        if ride.state.isFinal { return false }
        var guided = false
        /// The guide ran (a radio opened): the meeting's news was its to tell.
        var guideRan = false
        /// On arrival: the guide, until the ride is confirmed or cancelled (or q); without a
        /// radio, the sentence of what to do and a sound asked of the driver.
        func arrival() async {
            guard let guide, !guided else { return }
            guided = true
            guideRan = await guide.run(ride: ride, client: client, announcer: announcer)
        }
        if ride.state == .arrived { await arrival() }
        // A signal ended the guide: it ends the follow too (after the guide's own way out).
        if KeyboardKeys.terminationRequested { return Self.stoppedBySignal(announcer) }
        // The stream replays the history first; what happened before `start` was summed up above.
        let summarizedUpTo = max(ride.stateChangedAt, ride.etaGivenAt ?? .distantPast)
        /// The stream lost the server and has not got it back: said once, and its return once (issue 37, point 3).
        var unreachable = false
        for try await update in client.rideEvents(ride.id, after: nil) {
            switch update {
            case .interrupted where !unreachable:
                unreachable = true
                await announcer.sayAside(announcer.book(.guideServiceUnreachable))
            case .connected where unreachable:
                unreachable = false
                await announcer.sayAside(announcer.book(.guideServiceBack))
            default:
                break
            }
            guard case .event(let event) = update, event.at > summarizedUpTo else { continue }
            guide?.kerb.heard(event)
            // Without a guide, the driver's answer and moves are said here (issue 22).
            if !guideRan, let words = RideAnnouncement.meeting(event, ride: ride, in: announcer.book) {
                await announcer.announce(words)
                continue
            }
            // The guide's business (touch, locator), not news for a passenger waiting.
            guard event.kind.isStateChange || event.kind == .etaGiven else { continue }
            if event.state != ride.state || event.detail != nil {
                ride = (try? await client.ride(ride.id)) ?? ride
            }
            // The kerb is behind her: no more news of a come request.
            if event.kind.isStateChange, event.state != .arrived { guide?.kerb.stop() }
            let guiding = event.state == .arrived && event.kind.isStateChange ? await guide?.prepare() ?? false : false
            var words = RideAnnouncement.change(event, ride: ride, guiding: guiding, in: announcer.book)
            let offering = event.state == .cancelled && event.kind.isStateChange && offer != nil
                && RideCancellation(event: event, passengerID: ride.passengerID, driverID: ride.driverID).by != .passenger
            // Someone else cancelled: who and why, and the offer, in one announcement.
            if offering {
                words.body += " " + CancellationWords.offer(in: announcer.book)
                offer?.open()
            }
            await announcer.announce(words)
            if offering, let offer {
                guard await offer.wait() else { return false }
                let request = try await client.allRideRequests().first { $0.id == ride.requestID }
                guard let request else { return false }
                await announcer.announce(RideAnnouncement.Words(summary: announcer.book(.followWaitingSummary),
                                                                body: CancellationWords.askedAgain(try await askAgain(request, client: client), in: announcer.book)))
                return true
            }
            // Confirmed is not the end: the follow stays to say the ride completed (issue 25).
            if event.state.isFinal { return false }
            if event.state == .arrived { await arrival() }
            if KeyboardKeys.terminationRequested { return Self.stoppedBySignal(announcer) }
        }
        return false
    }

    /// Says the follow stopped and ends it (false: nothing to follow next).
    static func stoppedBySignal(_ announcer: RideAnnouncer) -> Bool {
        Say.line(announcer.book(.followStopped))
        return false
    }
}
