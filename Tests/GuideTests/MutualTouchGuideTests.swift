import BeaconCore
import Guide
import GuideSimulation
import GuideAudio
import RideSession
import Testing

/// Issue 12's mutual rule on the passenger's side: "Touch detected" (and a proof on Enter) only
/// when the driver's device reports feeling the same touch; until then "Hold the phones together".
@Suite struct MutualTouchGuideTests {
    static let holdTogether = "\"Hold the phones together.\""
    static let touchDetected = "\"Touch detected. Press Enter to confirm your ride.\""

    /// Walks in to contact: 4 s at 1 m, 3 s closing, then held at 2 cm for `held` seconds.
    static func walkToContact(_ guide: inout ScriptedGuide, held: Double = 3) {
        guide.walk(seconds: 4) { _ in 1.0 }
        guide.walk(seconds: 3) { t in max(0.02, 1.0 - 0.5 * t) }
        guide.walk(seconds: held) { _ in 0.02 }
    }

    static func posted(_ guide: ScriptedGuide) -> [TouchObservation] {
        guide.actions.compactMap { if case .postProof(let proof) = $0.action { proof } else { nil } }
    }

    @Test func thePassengersJumpAloneIsNoTouch() {
        var guide = ScriptedGuide()
        Self.walkToContact(&guide)
        #expect(guide.core.state == .holding)
        #expect(guide.cues.contains(Self.holdTogether))
        #expect(!guide.cues.contains(Self.touchDetected) && !guide.cues.contains("[touch]"))
        #expect(guide.pulseChanges(after: 4).last != .some(nil), "the pulse goes on while holding: silence would mean no signal")
        guide.press(.confirm)
        #expect(guide.cues.last == Self.holdTogether)
        #expect(Self.posted(guide).isEmpty, "no proof without the driver's side")
    }

    @Test func theDriversReportOfTheSameMomentMakesItATouch() throws {
        var guide = ScriptedGuide()
        Self.walkToContact(&guide)
        let holdingSince = try #require(guide.actions.last { if case .cue(let c) = $0.action { c.description == Self.holdTogether } else { false } }?.time)
        // The driver's device felt it from half a second after the passenger's until now.
        guide.driverFeels(from: holdingSince + 0.5, until: guide.time)
        #expect(guide.core.state == .touch)
        #expect(guide.cues.suffix(2) == ["[touch]", Self.touchDetected])
        guide.press(.confirm)
        let proof = try #require(Self.posted(guide).first)
        #expect(proof.firstUnixTime < proof.unixTime, "the proof carries this side's observation window")
        #expect(abs(proof.firstUnixTime - (ScriptedGuide.base + holdingSince)) < 0.2, "the window starts when the touch level was reached")
        #expect(proof.unixTime <= ScriptedGuide.base + guide.time)
    }

    @Test func aReportOfAnotherMomentIsNoTouch() {
        var guide = ScriptedGuide()
        // The driver's device felt a jump 2 s before the passenger reached the car, then nothing.
        guide.driverFeels(from: 1, until: 2)
        Self.walkToContact(&guide)
        #expect(guide.core.state == .holding)
        #expect(!guide.cues.contains(Self.touchDetected))
        // The server kept the proofs apart too; the guide says to hold on.
        guide.driverFeels(from: guide.time - 0.3, until: guide.time)
        #expect(guide.core.state == .touch)
    }

    @Test func aProofOfAnotherMomentAsksToHoldOnAndTheConfirmationStillArrives() {
        var guide = ScriptedGuide()
        guide.driverFeels(from: 0, until: 100)
        Self.walkToContact(&guide)
        guide.press(.confirm)
        #expect(guide.core.state == .confirming)
        guide.record(guide.core.handle(.proofAnswered(time: guide.time, .notSimultaneous)))
        #expect(guide.core.state == .touch)
        #expect(guide.cues.last == Self.holdTogether)
        guide.record(guide.core.handle(.rideConfirmed(time: guide.time + 2)))
        #expect(guide.core.state == .confirmed)
    }

    @Test func theSimulatorsPolicyIsTheServersRule() {
        let identity = BeaconIdentity(uuid: ScriptedGuide.identity.identity(of: .driver, slot: 1).uuid, major: 1, minor: 2)
        func seen(_ from: Double, _ until: Double) -> TouchObservation {
            TouchObservation(identity: identity, slot: 1, peakFilteredRSSI: -35, samples: 10, unixTime: until, firstUnixTime: from)
        }
        let overlap = MutualProofPolicy()
        #expect(overlap.prove(.passenger, seen(100, 102)) == .awaitingCounterpart)
        #expect(overlap.prove(.driver, seen(101.5, 103)) == .confirmed)

        let tolerance = MutualProofPolicy()
        #expect(tolerance.prove(.driver, seen(100, 100)) == .awaitingCounterpart)
        #expect(tolerance.prove(.passenger, seen(100.9, 101)) == .confirmed, "0.9 s apart is one touch")

        let apart = MutualProofPolicy()
        #expect(apart.prove(.passenger, seen(100, 101)) == .awaitingCounterpart)
        #expect(apart.prove(.driver, seen(103, 104)) == .notSimultaneous)
        #expect(!apart.confirmed)
        #expect(apart.prove(.passenger, seen(103.5, 105)) == .confirmed, "a later proof that meets the kept one confirms")

        let oneSide = MutualProofPolicy()
        for start in stride(from: 100.0, to: 130, by: 5) {
            #expect(oneSide.prove(.driver, seen(start, start + 1)) == .awaitingCounterpart)
        }
        #expect(!oneSide.confirmed, "the driver's proofs alone, however many, never confirm")
    }
}
