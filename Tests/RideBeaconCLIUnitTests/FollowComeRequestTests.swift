import BeaconCore
import Foundation
import Guide
import Phrasebook
@testable import RideBeaconCLI
import RideClient
import RideSession
import Testing

/// `passenger follow` without a radio asks the driver to come to her (issue 37, point 2), and
/// says of him only what his device sent: "Ben's phone has your request" after `come_received`,
/// "Ben is coming to you" after his answer, "Ben's phone has not answered" and the next step when
/// nothing came within the wait; and a confirmation is said by how it happened (point 8).
@Suite("passenger follow asks the driver to come, in process")
struct FollowComeRequestTests {
    typealias Follow = FollowFlowTests.Follow

    /// Runs the follow of an arrived ride, its radio failing, until the ride ends.
    static func follow(_ follow: Follow, answerWait: Duration = .seconds(60), console: ConsoleRecorder) throws -> Task<Bool, any Error> {
        let guide = try follow.guide()
        guide.kerb = FollowKerb(answerWait: answerWait)
        return Task {
            try await console.record {
                try await PassengerFollowCommand.followEvents(of: Script.ride(.arrived), client: follow.service, announcer: follow.announcer,
                                                              guide: guide)
            }
        }
    }

    static let ben: [String: PhraseValue] = ["name": .text("Ben")]

    @Test("his phone's receipt, then his answer, each said only once his device sent it, in her language", arguments: Language.allCases)
    func receivedThenComing(language: Language) async throws {
        let follow = try Follow(language, rides: [Script.ride(.arrived)])
        let console = ConsoleRecorder()
        let running = try Self.follow(follow, console: console)
        let book = follow.book
        #expect(await console.printed(book(.comeAskingSummary, Self.ben)), "\(console.out)")
        #expect(follow.service.comeRequests == ["ride-1"])
        let received = book(.comeReceivedSummary, Self.ben)
        let coming = book(.comeComingSummary, Self.ben)
        #expect(!console.out.contains { $0.contains(received) || $0.contains(coming) }, "nothing of him before his device: \(console.out)")
        follow.service.send(Script.event(.arrived, kind: .comeRequested, by: "ana", sequence: 4, seconds: 1))
        follow.service.send(Script.event(.arrived, kind: .comeReceived, sequence: 5, seconds: 2))
        #expect(await console.printed(received), "\(console.out)")
        #expect(!console.out.contains { $0.contains(coming) }, "he has not answered yet: \(console.out)")
        follow.service.send(Script.event(.arrived, kind: .comeAnswered, detail: "coming", sequence: 6, seconds: 20))
        #expect(await console.printed(coming), "\(console.out)")
        follow.service.send(Script.event(.cancelled, by: "ana", sequence: 7, seconds: 90))
        _ = try await running.value
        #expect(!console.out.contains { $0.contains(book(.comeNoAnswerSummary, Self.ben)) }, "\(console.out)")
    }

    @Test("he cannot leave the car: she is told so and offered the next step")
    func staying() async throws {
        let follow = try Follow(rides: [Script.ride(.arrived)])
        let console = ConsoleRecorder()
        let running = try Self.follow(follow, console: console)
        #expect(await console.printed(follow.book(.comeAskingSummary, Self.ben)), "\(console.out)")
        follow.service.send(Script.event(.arrived, kind: .comeAnswered, detail: "staying", sequence: 5, seconds: 5))
        let staying = follow.book(.comeStayingSummary, Self.ben) + ". " + follow.book(.comeNextStep)
        #expect(await console.printed(staying), "\(console.out)")
        follow.service.send(Script.event(.cancelled, by: "ana", sequence: 6, seconds: 90))
        _ = try await running.value
        #expect(!console.out.contains { $0.contains(follow.book(.comeComingSummary, Self.ben)) }, "\(console.out)")
    }

    @Test("no answer within the wait: said so, with the next step; his phone's receipt changes the sentence")
    func noAnswer() async throws {
        let silent = try Follow(rides: [Script.ride(.arrived)])
        let console = ConsoleRecorder()
        let running = try Self.follow(silent, answerWait: .milliseconds(50), console: console)
        let none = silent.book(.comeNoAnswerSummary, Self.ben) + ". " + silent.book(.comeNextStep)
        #expect(await console.printed(none), "\(console.out)")
        silent.service.send(Script.event(.cancelled, by: "ana", sequence: 6, seconds: 90))
        _ = try await running.value

        let received = try Follow(rides: [Script.ride(.arrived)])
        received.service.send(Script.event(.arrived, kind: .comeReceived, sequence: 5, seconds: 2))
        let heard = ConsoleRecorder()
        let waiting = try Self.follow(received, answerWait: .seconds(1), console: heard)
        #expect(await heard.printed(received.book(.comeReceivedNoAnswerSummary, Self.ben)), "\(heard.out)")
        received.service.send(Script.event(.cancelled, by: "ana", sequence: 6, seconds: 90))
        _ = try await waiting.value
    }

    @Test("a request the service refused is not said as sent")
    func refused() async throws {
        let follow = try Follow(rides: [Script.ride(.arrived)])
        follow.service.answerComeRequests(.refused("the ride is confirmed; it takes come requests only while arrived"))
        follow.service.send(Script.event(.cancelled, by: "ana", sequence: 6, seconds: 90))
        let console = ConsoleRecorder()
        _ = try await Self.follow(follow, console: console).value
        #expect(console.out.contains { $0.hasPrefix(follow.book(.comeNotSentSummary, Self.ben)) }, "\(console.out)")
        #expect(!console.out.contains { $0.contains(follow.book(.comeAskingSummary, Self.ben)) }, "\(console.out)")
    }

    @Test("each confirmation is said by how it happened: touch, ride word, operator", arguments: [
        ("ben", "touch proofs of passenger and driver", PhraseID.followConfirmedBody),
        ("ana", "ride word (word proof, weaker than touch)", PhraseID.followConfirmedByWord),
        ("operator", "confirmed by an operator (ridebeacon admin confirm-ride)", PhraseID.followConfirmedByOperator),
    ])
    func confirmationSaidAsItHappened(actor: String, detail: String, phrase: PhraseID) async throws {
        let follow = try Follow(rides: [Script.ride(.arrived)])
        follow.service.send(Script.event(.confirmed, by: actor, detail: detail, sequence: 4, seconds: 60))
        follow.service.send(Script.event(.completed, sequence: 5, seconds: 600))
        let console = ConsoleRecorder()
        _ = try await Self.follow(follow, console: console).value
        let said = try #require(console.out.first { $0.hasPrefix(follow.book(.followConfirmedSummary)) }, "\(console.out)")
        #expect(said.contains(follow.book(phrase, Self.ben)), "\(said)")
        let others = [PhraseID.followConfirmedBody, .followConfirmedByWord, .followConfirmedByOperator].filter { $0 != phrase }
        #expect(others.allSatisfy { !said.contains(follow.book($0, Self.ben)) }, "\(said)")
    }

    @Test("without a radio, w says the ride word and s asks for a sound (here refused, and said so)")
    func keysWithoutARadio() async throws {
        let follow = try Follow(rides: [Script.ride(.arrived)])
        let kerb = FollowKerb(answerWait: .seconds(60))
        let console = ConsoleRecorder()
        await console.record {
            #expect(await !kerb.key(.rideWord), "no ride waits at the kerb yet")
            // Her account speaks Spanish: the ride word is her list's, as the driver's device says it.
            var ride = Script.ride(.arrived)
            ride.passenger.language = "es"
            await kerb.askDriverToCome(ride: ride, client: follow.service, announcer: follow.announcer)
            #expect(await kerb.key(.rideWord))
            #expect(await kerb.key(.soundLocator))
            kerb.stop()
        }
        let word = RideWord.phrase(rideKey: Script.rideKey, language: "es")
        #expect(word != RideWord.phrase(rideKey: Script.rideKey), "the Spanish list differs from the English one")
        #expect(console.out.contains(follow.book(.guideRideWordIs, ["word": .text(word)])), "\(console.out)")
        // The scripted service's ride is not arrived, so the car cannot sound: said as refused, not as asked.
        let refusal = "the ride is accepted; the car sounds its locator only while it is arrived"
        #expect(console.out.contains(follow.book(.guideLocatorUnavailable, ["reason": .text(refusal)])), "\(console.out)")
    }
}
