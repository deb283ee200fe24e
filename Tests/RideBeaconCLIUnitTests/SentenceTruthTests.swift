import Phrasebook
@testable import RideBeaconCLI
import RideClient
import RideSession
import Testing

/// Issue 37's "Done when": `passenger follow` and `driver arrive`, in process, through the
/// arrival, an outage and the service's return, a cancellation by each party, on a passenger's
/// device with no radio, no audio player and no microphone; every line either device printed
/// (and every sentence hers was asked to speak) is checked against what actually happened
/// (KerbWorld's timeline, KerbClaims' table): nothing announced before it happened, nothing
/// said after something made it false, and nothing left unsaid that had to be said.
@Suite("every sentence true when said: follow and driver arrive, side by side")
struct SentenceTruthTests {
    /// The table's verdict: every claim after its fact and before what makes it false, every duty done.
    static func expectTrue(_ world: KerbWorld, sourceLocation: SourceLocation = #_sourceLocation) {
        let violations = world.violations()
        #expect(violations.isEmpty, "\(violations.map(\.description).joined(separator: "\n"))\n\(world.timeline.transcript)",
                sourceLocation: sourceLocation)
        // Her device speaks only what it printed (so the claims on printed lines cover speech).
        let printed = Set(world.timeline.lines(by: .passenger).map(SinkText.speech))
        let unprinted = world.spokenByPassenger.filter { !printed.contains($0) }
        #expect(unprinted.isEmpty, "spoken but never printed: \(unprinted)", sourceLocation: sourceLocation)
    }

    @Test("a whole ride: arrival without a radio, she asks him to come, an outage and its end, he is coming, confirmed, completed",
          arguments: [(Language.en, Language.en), (.es, .fr), (.fr, .es)])
    func wholeRide(passenger: Language, driver: Language) async throws {
        let world = try KerbWorld(passenger: passenger, driver: driver)
        let claims = world.claims
        let (ben, ana): ([String: PhraseValue], [String: PhraseValue]) = (["name": "Ben"], ["name": "Ana"])
        let following = world.follow()
        #expect(await world.timeline.printed(claims.passenger(.followOnTheWay, ben), by: .passenger))
        let arriving = try world.arrive()
        // Her follow has no radio: it asks him to come to her; his device tells him and says it has the request.
        #expect(await world.timeline.happened(.comeRequested), "\(world.timeline.transcript)")
        #expect(await world.timeline.printed(claims.driver(.driverComeAsked, ana), by: .driver), "\(world.timeline.transcript)")
        #expect(await world.timeline.happened(.comeAnswered(.received)), "\(world.timeline.transcript)")
        #expect(await world.timeline.printed(claims.passenger(.comeReceivedSummary, ben), by: .passenger), "\(world.timeline.transcript)")
        world.outage()
        #expect(await world.timeline.printed(claims.passenger(.guideServiceUnreachable), by: .passenger), "\(world.timeline.transcript)")
        world.recovery()
        #expect(await world.timeline.printed(claims.passenger(.guideServiceBack), by: .passenger), "\(world.timeline.transcript)")
        world.driverPresses(.coming)
        #expect(await world.timeline.printed(claims.passenger(.comeComingSummary, ben), by: .passenger), "\(world.timeline.transcript)")
        #expect(await world.timeline.printed(anyOf: claims.words(of: "she is told he walks over"), by: .driver), "\(world.timeline.transcript)")
        world.confirm()
        await arriving.value
        #expect(await world.timeline.printed(claims.passenger(.followConfirmedSummary), by: .passenger), "\(world.timeline.transcript)")
        world.complete()
        try await following.value
        Self.expectTrue(world)
        #expect(world.timeline.lines(by: .passenger).last?.hasPrefix(claims.passenger(.followCompletedSummary)) == true,
                "\(world.timeline.transcript)")
    }

    @Test("a cancellation by each party at the kerb: both devices say it, hers says who", arguments: Party.allCases)
    func cancellation(by party: Party) async throws {
        let world = try KerbWorld(passenger: .es, driver: .en)
        let following = world.follow()
        let arriving = try world.arrive()
        #expect(await world.timeline.printed(world.claims.passenger(.followArrivedSummary, ["name": "Ben"]), by: .passenger),
                "\(world.timeline.transcript)")
        world.cancel(by: party)
        try await following.value
        await arriving.value
        Self.expectTrue(world)
    }

    @Test("the table catches a sentence said before its event, and a duty left unsaid")
    func theTableCatchesLies() {
        let claims = KerbClaims(passenger: .english, driver: .english)
        let early: [Moment] = [.fact(.accepted), .said(Said(by: .passenger, text: "Ben is walking to you. Stay where you are.")),
                               .fact(.driverComing), .fact(.serviceLost)]
        let violations = claims.check(early)
        #expect(violations.contains { $0.rule == "the driver walks to her" }, "\(violations)")
        #expect(violations.contains { $0.rule == "the outage is announced" }, "\(violations)")
        let spokenWithoutSound: [Moment] = [.fact(.lacks(.audio)), .fact(.lacks(.notifications)),
                                            .said(Said(by: .passenger, text: Phrasebook.english(.followNoNotifications)))]
        #expect(claims.check(spokenWithoutSound).contains { $0.rule == "every change is spoken" })
        // His answer said before his device gave it; his phone's receipt said before it came.
        let unanswered = claims.check([.fact(.arrived), .fact(.comeRequested),
                                       .said(Said(by: .passenger, text: claims.passenger(.comeComingSummary, ["name": "Ben"])))])
        #expect(unanswered.contains { $0.rule == "he answers he is coming" }, "\(unanswered)")
        let early2 = claims.check([.fact(.arrived), .said(Said(by: .passenger, text: claims.passenger(.comeReceivedSummary, ["name": "Ben"]))),
                                   .fact(.comeRequested), .fact(.comeAnswered(.received))])
        #expect(early2.contains { $0.rule == "his phone has her request" }, "\(early2)")
    }
}
