import BeaconCore
import Guide
import GuideSimulation
import GuideAudio
import RideSession
import Testing

/// When the passenger's guide asks the driver for a sound, and what the passenger then hears:
/// the request is said to be asked, the sound only once the driver made it (issue 22).
@Suite("Guide: the car's locator sound")
struct LocatorGuideTests {
    static let asked = "\"Asking Ben for a sound.\""
    static let horn = "\"Ben is sounding the horn. Walk towards the sound.\""
    static let ticking = "\"Ben's phone is ticking. Walk towards the sound.\""

    @Test func keySAsksAndTheAnswerIsSpokenEvenWithEarconsOnly() {
        #expect(GuideKey(character: "s") == .soundLocator && GuideKey(character: "S") == .soundLocator)
        var guide = ScriptedGuide(verbosity: .earcons, aids: .none)
        guide.walk(seconds: 2) { _ in 20 }
        guide.press(.soundLocator)
        #expect(guide.locatorRequests == [guide.time])
        // A second press before the answer does not send a second request.
        guide.press(.soundLocator)
        #expect(guide.locatorRequests.count == 1)
        guide.record(guide.core.handle(.locatorAnswered(time: guide.time, .ticking(seconds: 30))))
        #expect(guide.cues.last == Self.asked, "the request is with the driver; no sound is promised")
        #expect(!guide.core.locator.isTicking(at: guide.time) && guide.core.locator.isAwaiting(at: guide.time))
        guide.record(guide.core.handle(.driverSounded(time: guide.time + 3, .horn, age: 0)))
        #expect(guide.cues.last == Self.horn)
        #expect(guide.core.locator.isTicking(at: guide.time + 12) && !guide.core.locator.isTicking(at: guide.time + 14))
    }

    @Test func theGuideAsksByItselfNearTheCarWhenTheDirectionIsUnsure() throws {
        var guide = ScriptedGuide(aids: .locator)
        // Standing 8 m away: distance known, no trend.
        guide.walk(seconds: 12) { _ in 8 }
        let asked = guide.locatorRequests
        #expect(asked.count == 1, "\(asked)")
        let at = try #require(asked.first)
        #expect((1...3).contains(at), "asked about a second after the first estimate, with no direction: \(asked)")
        guide.record(guide.core.handle(.locatorAnswered(time: guide.time, .ticking(seconds: 30))))
        #expect(guide.cues.last == Self.asked)
        guide.record(guide.core.handle(.driverSounded(time: guide.time, .device, age: 0)))
        #expect(guide.cues.last == Self.ticking)
        // While the car ticks, and for 30 s after asking, the guide does not ask again.
        guide.walk(seconds: 20) { _ in 8 }
        #expect(guide.locatorRequests.count == 1)
        // Once the ticks have run out and it is still unsure, it asks again.
        guide.walk(seconds: 15) { _ in 8 }
        #expect(guide.locatorRequests.count == 2)
    }

    @Test func farAwayTheLocatorIsAskedForOnlyWhereATurnWouldStart() {
        var far = ScriptedGuide(aids: .all)
        far.walk(seconds: 9) { _ in 30 }
        #expect(far.locatorRequests.isEmpty, "30 m: not after 3 s unsure, as near the car")
        far.walk(seconds: 6) { _ in 30 }
        let asked = far.locatorRequests
        #expect(asked.count == 1 && (9.5...12).contains(asked.first ?? 0), "instead of the turn at 10 s: \(asked)")
        #expect(!far.cues.contains { $0.contains("turn slowly") }, "no turn while the request is out: \(far.cues)")

        // A car that will not sound: the turn, as without the aid.
        far.record(far.core.handle(.locatorAnswered(time: far.time, .refused("not arrived"))))
        far.walk(seconds: 12) { _ in 30 }
        #expect(far.cues.contains { $0.contains("turn slowly") }, "\(far.cues)")
        #expect(far.locatorRequests.count == 1)
    }

    @Test func noAutomaticRequestWhileTheTrendIsSureOrWithoutTheAid() {

        // A confident trend needs no help: the decision itself, fed one estimate a second.
        var sure = LocatorAsking(automatic: true)
        #expect(!(0..<60).contains { sure.shouldAsk(at: Double($0), distance: 10, trend: $0 % 2 == 0 ? .closer : .farther) })
        var unsure = LocatorAsking(automatic: true)
        #expect((0..<60).first { unsure.shouldAsk(at: Double($0), distance: 10, trend: $0 < 5 ? .closer : .steady) } == 5, "1 s after the last confident trend")

        for aids in [GuideAids.none, .turn] {
            var guide = ScriptedGuide(aids: aids)
            guide.walk(seconds: 15) { _ in 8 }
            #expect(guide.locatorRequests.isEmpty, "\(aids)")
        }
    }

    @Test func refusalsAreExplainedAndTooSoonMeansItIsAlreadyTicking() {
        var guide = ScriptedGuide(aids: .none)
        guide.walk(seconds: 2) { _ in 8 }
        guide.press(.soundLocator)
        guide.record(guide.core.handle(.locatorAnswered(time: guide.time, .tooSoon(retryAfter: 4))))
        #expect(guide.cues.last == Self.asked, "asked less than 10 s ago: that request's answer is awaited, nothing promised")
        guide.press(.soundLocator)
        guide.record(guide.core.handle(.locatorAnswered(time: guide.time, .refused("the ride is confirmed"))))
        #expect(guide.cues.last == "\"The car cannot sound now: the ride is confirmed.\"")
        #expect(guide.locatorRequests.count == 2)
    }

    @Test func noRequestBeforeTheDriverArrives() {
        var core = GuideCore(ride: ScriptedGuide.ride, verbosity: .brief)
        _ = core.start(time: 0)
        #expect(!core.handle(.key(time: 1, .soundLocator)).contains(.requestLocator))
    }
}
