import BeaconCore
import Foundation
import Guide
import GuideAudio
import Phrasebook
import RadioCore
@testable import RideBeaconCLI
import RideClient
import RideSession
import SessionDoubles
import Synchronization
import Testing

/// `passenger follow`, in process: what it prints at each moment of a ride (issue 37: one true
/// sentence per moment), through a scripted ride service, a keys stream and a radio that fails.
@Suite("passenger follow's flow, in process")
struct FollowFlowTests {
    /// A follow's parts: the service, the announcer (no audio, no notifications) and its book.
    struct Follow {
        let service: ScriptedRideCommands
        let announcer: RideAnnouncer
        let book: Phrasebook
        let player: LiveCuePlayer

        init(_ language: Language = .en, rides: [Ride] = [], requests: [RideRequest] = []) throws {
            let identity = try RotatingIdentity(rideKey: Script.rideKey, period: 60)
            let session = InMemoryRideService(rideID: "ride-1", identity: identity, state: .accepted, clock: SystemClock())
            service = ScriptedRideCommands(session: session.passenger, rides: rides, requests: requests)
            book = Phrasebook(language)
            player = LiveCuePlayer(speech: nil, sink: NullSink()) { _ in }
            announcer = RideAnnouncer(player: player, notifications: nil, book: book)
        }

        /// The guide `follow` starts on arrival, on a radio that cannot be opened.
        func guide(verbose: Bool = false, opened: Tally = Tally()) throws -> FollowGuide {
            let guide = FollowGuide(radio: try RadioSelection(parsing: "bluez"), settings: .standard, audioOut: "none",
                                    identityPeriod: 60, player: player) { _ in
                opened.add()
                throw RadioError("org.freedesktop.DBus.Error.NoServer: Failed to connect to socket /run/dbus/system_bus_socket")
            }
            guide.verbose = verbose
            return guide
        }
    }

    /// How often the radio was opened.
    final class Tally: Sendable {
        private let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    struct RadioError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("at the kerb, a radio that fails to open: one sentence, no guiding claim, no radio error", arguments: Language.allCases)
    func kerbWithoutARadioIsOneSentence(language: Language) async throws {
        let follow = try Follow(language, rides: [Script.ride(.arrived)])
        let opened = Tally()
        let guide = try follow.guide(opened: opened)
        // The history's arrival (summed up by the first sentence), then the rest of the ride.
        for update in [Script.event(.arrived, sequence: 3, seconds: 0), Script.event(.confirmed, sequence: 4, seconds: 60),
                       Script.event(.completed, sequence: 5, seconds: 600)] { follow.service.send(update) }
        let console = ConsoleRecorder()
        let askAgain = try await console.record {
            try await PassengerFollowCommand.followEvents(of: Script.ride(.arrived), client: follow.service, announcer: follow.announcer, guide: guide)
        }
        let arrival = follow.book(.followArrivedSummary, ["name": .text("Ben")])
        #expect(console.out.filter { $0.contains(arrival) }.count == 1, "\(console.out)")
        let first = try #require(console.out.first)
        #expect(first.hasPrefix(arrival) && first.hasSuffix(follow.book(.rideNoGuide, ["name": .text("Ben")])), "\(first)")
        #expect(!console.out.contains { $0.contains(follow.book(.ridePhoneGuiding)) }, "\(console.out)")
        #expect(console.err.isEmpty, "the radio's error is no second sentence: \(console.err)")
        #expect(opened.count == 1, "the radio is tried once, before the sentence")
        #expect(follow.service.comeRequests == ["ride-1"], "the driver is asked to come to her")
        #expect(follow.service.locatorRequests.isEmpty, "and not for a sound she was not told to walk to")
        let asking = follow.book(.comeAskingSummary, ["name": .text("Ben")])
        #expect(console.out.count > 1 && console.out[1].hasPrefix(asking), "said once the request is sent: \(console.out)")
        #expect(console.out.last == follow.book(.followCompletedSummary) + ". " + follow.book(.followRideCode, ["code": .code("K7RX")]))
        #expect(!askAgain)
    }

    @Test("--verbose prints why the radio did not open, still one arrival sentence")
    func verboseSaysTheRadiosReason() async throws {
        let follow = try Follow(rides: [Script.ride(.arrived)])
        let guide = try follow.guide(verbose: true)
        follow.service.send(Script.event(.cancelled, by: "ana", sequence: 4, seconds: 30))
        let console = ConsoleRecorder()
        _ = try await console.record {
            try await PassengerFollowCommand.followEvents(of: Script.ride(.arrived), client: follow.service, announcer: follow.announcer, guide: guide)
        }
        #expect(console.err == ["ridebeacon: bluez:hci0: org.freedesktop.DBus.Error.NoServer: Failed to connect to socket /run/dbus/system_bus_socket"],
                "\(console.err)")
        #expect(console.out.filter { $0.contains("Ben has arrived") }.count == 1, "\(console.out)")
    }

    @Test("a dispatcher's cancellation says who and why with the offer; Enter asks for the same ride again")
    func cancellationByADispatcher() async throws {
        let follow = try Follow(rides: [Script.ride(.accepted)], requests: [Script.request(.accepted)])
        follow.service.send(Script.event(.cancelled, by: "dispatcher-7", detail: "driver unwell", sequence: 4, seconds: 30))
        let offer = AskAgainOffer()
        let console = ConsoleRecorder()
        let following = Task {
            try await console.record {
                try await PassengerFollowCommand.followEvents(of: Script.ride(.accepted), client: follow.service, announcer: follow.announcer,
                                                              offer: offer)
            }
        }
        #expect(await console.printed(follow.book(.historyAskAgainOffer)), "\(console.out)")
        #expect(offer.accept(), "Enter answers the open offer")
        #expect(try await following.value, "the follow goes on with the new request")
        let cancelled = try #require(console.out.first { $0.contains("Cancelled by a dispatcher: driver unwell.") }, "\(console.out)")
        #expect(cancelled.hasSuffix("Press Enter to ask for the same ride again, or q to stop."), "one announcement: \(cancelled)")
        #expect(follow.service.created == [NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station",
                                                          accessibilityNotes: "guide dog")])
        let again = try #require(try await follow.service.allRideRequests().last)
        #expect(console.out.last == follow.book(.followWaitingSummary) + ". " + CancellationWords.askedAgain(again, in: follow.book),
                "\(console.out)")
    }

    @Test("her own cancellation ends the follow without an offer")
    func herOwnCancellation() async throws {
        let follow = try Follow(rides: [Script.ride(.accepted)])
        follow.service.send(Script.event(.cancelled, by: "ana", sequence: 4, seconds: 30))
        let console = ConsoleRecorder()
        let askAgain = try await console.record {
            try await PassengerFollowCommand.followEvents(of: Script.ride(.accepted), client: follow.service, announcer: follow.announcer,
                                                          offer: AskAgainOffer())
        }
        #expect(!askAgain)
        #expect(console.out.last?.contains("Cancelled by you.") == true, "\(console.out)")
        #expect(!console.out.contains { $0.contains(follow.book(.historyAskAgainOffer)) })
        #expect(follow.service.created.isEmpty)
    }

    @Test("an outage is said once and the service's return once, in her language", arguments: Language.allCases)
    func outageAndReturn(language: Language) async throws {
        let follow = try Follow(language, rides: [Script.ride(.accepted)])
        let broken = LiveUpdate.interrupted(.unreachable("connection refused"), retryingIn: .seconds(1))
        for update in [broken, broken, broken, .connected, broken, .connected] { follow.service.send(update) }
        follow.service.send(Script.event(.cancelled, by: "ana", sequence: 4, seconds: 30))
        let console = ConsoleRecorder()
        _ = try await console.record {
            try await PassengerFollowCommand.followEvents(of: Script.ride(.accepted), client: follow.service, announcer: follow.announcer)
        }
        let aside = console.out.filter { $0 == follow.book(.guideServiceUnreachable) || $0 == follow.book(.guideServiceBack) }
        #expect(aside == [follow.book(.guideServiceUnreachable), follow.book(.guideServiceBack),
                          follow.book(.guideServiceUnreachable), follow.book(.guideServiceBack)], "\(console.out)")
    }

    @Test("r repeats the last announcement, q stops following")
    func repeatAndQuit() async throws {
        var ride = Script.ride(.accepted)
        ride.etaMinutes = 4
        ride.etaGivenAt = Script.start
        let follow = try Follow(rides: [ride])
        let (keys, press) = AsyncStream<GuideKey>.makeStream()
        let console = ConsoleRecorder()
        let following = Task {
            try await console.record {
                try await PassengerFollowCommand.follow(rideArgument: "K7RX", client: follow.service, announcer: follow.announcer, keys: keys)
            }
        }
        let onTheWay = follow.book(.followThereInMinutes, ["name": .text("Ben"), "minutes": .count(4)])
        #expect(await console.printed(onTheWay), "\(console.out)")
        press.yield(.repeatLast)
        press.yield(.quit)
        try await following.value
        #expect(console.out.count == 3, "\(console.out)")
        #expect(console.out[0].hasPrefix(onTheWay) && console.out[1] == console.out[0], "\(console.out)")
        #expect(console.out[2] == "Stopped following.")
    }

    @Test("no ride and no request: one sentence that names the command to run")
    func nothingToFollow() async throws {
        let follow = try Follow()
        let failure = await #expect(throws: CommandLineFailure.self) {
            try await PassengerFollowCommand.resolve(nil, client: follow.service, announcer: follow.announcer)
        }
        #expect(failure?.message.contains("`ridebeacon passenger request`") == true, "\(String(describing: failure))")
    }

    @Test("a request cancelled by a dispatcher while she waits: who and why, said once")
    func requestCancelledWhileWaiting() async throws {
        let follow = try Follow(requests: [Script.request(.open)])
        let console = ConsoleRecorder()
        let resolving = Task {
            try await console.record {
                try await PassengerFollowCommand.resolve(nil, client: follow.service, announcer: follow.announcer, poll: .milliseconds(5))
            }
        }
        #expect(await console.printed("from Main St 1 to Station"), "the open request is said: \(console.out)")
        follow.service.setRequests([Script.request(.cancelled, cancellation: RideCancellation(by: .dispatcher, reason: "no drivers tonight",
                                                                                               at: Script.start))])
        let failure = await #expect(throws: CommandLineFailure.self) { try await resolving.value }
        #expect(failure?.message == "Your request was cancelled by a dispatcher: no drivers tonight.")
        #expect(console.out.count == 1, "the wait is said once however often it looks: \(console.out)")
    }
}
