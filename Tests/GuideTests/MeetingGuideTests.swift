import BeaconCore
import Foundation
import Guide
import GuideAudio
import GuideSimulation
import RideSession
import Testing

/// The passenger's side of the meeting at the kerb (issue 22), scripted: the driver's answer
/// or its absence, the driver walking over, the car across the street, the ride word.
@Suite("Guide: finding each other")
struct MeetingGuideTests {
    static let cannot = "\"Ben cannot make a sound now; let's turn to find the car.\""
    static let noAnswer = "\"No answer from Ben.\""
    static let wordRide = GuideRide(rideID: "ride-1", driverName: "Ben", vehicle: "blue Toyota Prius", identity: ScriptedGuide.identity,
                                    rideWord: "river candle")

    static func asked(_ guide: inout ScriptedGuide) {
        guide.press(.soundLocator)
        guide.record(guide.core.handle(.locatorAnswered(time: guide.time, .ticking(seconds: 30))))
    }

    @Test("no answer within 10 s: the passenger is told so, nothing about what the driver can do; a late answer promises nothing")
    func noAnswerIsSaidAsItIs() {
        var guide = ScriptedGuide(aids: .none)
        guide.walk(seconds: 2) { _ in 20 }
        Self.asked(&guide)
        let askedAt = guide.time
        guide.walk(seconds: 9.5) { _ in 20 }
        #expect(!guide.cues(after: askedAt + 0.01).contains(Self.noAnswer), "still waiting at 9.5 s")
        guide.walk(seconds: 1) { _ in 20 }
        let after = guide.cues(after: askedAt + 0.01)
        // Issue 37 (4): "Ben cannot make a sound now" was a claim his device never made.
        #expect(after.contains(Self.noAnswer) && !after.contains(Self.cannot), "\(after)")
        #expect(!after.contains { $0.contains("turn slowly on the spot") }, "no turn without the turn aid: \(after)")
        guide.record(guide.core.handle(.driverSounded(time: guide.time, .horn, age: 0)))
        #expect(!guide.cues.contains { $0.contains("sounding the horn") }, "a late answer is not announced")
    }

    @Test("the driver says no: the same sentence at once; an answer from a replayed history is ignored")
    func cannotAndReplays() {
        var guide = ScriptedGuide(aids: .none)
        guide.walk(seconds: 2) { _ in 20 }
        // Replayed: an answer older than any request.
        guide.record(guide.core.handle(.driverSounded(time: guide.time, .horn, age: 60)))
        #expect(!guide.cues.contains { $0.contains("horn") })
        Self.asked(&guide)
        guide.record(guide.core.handle(.driverSounded(time: guide.time + 1, .horn, age: 40)))
        #expect(!guide.cues.contains { $0.contains("horn") }, "answered before this request was made")
        guide.record(guide.core.handle(.driverSounded(time: guide.time + 2, .none, age: 0)))
        #expect(guide.cues.last(where: { $0.hasPrefix("\"Ben") }) == Self.cannot)
    }

    @Test("the driver is coming: the passenger is told to stay, and no direction is given any more")
    func driverComingHoldsThePassenger() {
        var guide = ScriptedGuide(aids: .all)
        guide.walk(seconds: 3) { _ in 15 }
        guide.record(guide.core.handle(.driverMeeting(time: guide.time, .coming)))
        #expect(guide.cues.last == "\"Ben is walking to you. Stay where you are.\"")
        let from = guide.time
        // The car comes to her: closing fast, which would otherwise be "closer" motifs.
        guide.walk(seconds: 12) { t in max(1, 15 - 1.2 * t) }
        let later = guide.cues(after: from + 0.01)
        #expect(!later.contains("[closer]") && !later.contains("[farther]"), "\(later)")
        #expect(!later.contains { $0.contains("turn slowly") } && guide.locatorRequests.filter { $0 > from }.isEmpty)
        #expect(guide.core.meetingHeld)
    }

    @Test("the driver says the car is across the street: stay on the pavement, no direction")
    func driverSaysAcross() {
        var guide = ScriptedGuide(aids: .all)
        guide.walk(seconds: 3) { _ in 14 }
        guide.record(guide.core.handle(.driverMeeting(time: guide.time, .across)))
        #expect(guide.cues.last == "\"Your car is across the street. Stay on the pavement; Ben is coming to your side.\"")
        #expect(guide.core.outbox.isEmpty, "the driver said it: nothing to tell the driver")
        let from = guide.time
        guide.walk(seconds: 8) { t in 14 - 0.5 * t }
        #expect(!guide.cues(after: from + 0.01).contains("[closer]"))
    }

    @Test("walking along the kerb past a car across the street: the guide says so and tells the driver's device")
    func theGuideJudgesTheCarAcross() {
        var guide = ScriptedGuide(aids: .none, calibration: ScriptedGuide.matchedLine)
        guide.record(guide.core.handle(.walking(time: 0, true)))
        // Along the kerb at 1 m/s, the car 12 m away across the street: 15.6 m, 12 m abeam, 15.6 m.
        guide.walk(seconds: 26) { t in (144 + (10 - t) * (10 - t)).squareRoot() }
        let said = "\"Your car is across the street. Stay on the pavement; Ben is coming to your side.\""
        #expect(guide.cues.contains(said), "\(guide.cues)")
        #expect(guide.core.takeOutbox() == [.carAcross])
        #expect(guide.core.carAcross && guide.core.meetingHeld)

        // Walking towards a car on the same side: never.
        var towards = ScriptedGuide(aids: .none, calibration: ScriptedGuide.matchedLine)
        towards.record(towards.core.handle(.walking(time: 0, true)))
        towards.walk(seconds: 24) { t in max(0.5, 26 - t) }
        #expect(!towards.cues.contains(said) && towards.core.takeOutbox().isEmpty)
        // Standing still 12 m away (waiting, not walking): never.
        var standing = ScriptedGuide(aids: .none, calibration: ScriptedGuide.matchedLine)
        standing.record(standing.core.handle(.walking(time: 0, false)))
        standing.walk(seconds: 30) { _ in 12 }
        #expect(!standing.cues.contains(said))
    }

    @Test("the judge itself: evidence over the window, walking, never within reach, not closing")
    func acrossTheStreetJudge() {
        func judge(walking: Bool?, distance: (Double) -> Double) -> Bool {
            var judge = AcrossTheStreet()
            if let walking { judge.walking(time: 0, walking) }
            var t = 0.0
            while t <= 25 {
                judge.note(time: t, distance: distance(t))
                t += 0.5
            }
            return judge.isAcross(at: 25)
        }
        #expect(judge(walking: true) { t in (100 + (12 - t) * (12 - t)).squareRoot() })
        #expect(!judge(walking: true) { t in 30 - t }, "closing")
        #expect(!judge(walking: false) { _ in 10 }, "standing")
        #expect(!judge(walking: nil) { _ in 10 }, "no step detector: the driver's key only")
        #expect(!judge(walking: true) { t in 4 + 0.01 * t }, "within a few metres: on the passenger's side")
        var short = AcrossTheStreet()
        short.walking(time: 0, true)
        for step in 0..<20 { short.note(time: Double(step) * 0.5, distance: 12) }
        #expect(!short.isAcross(at: 10), "10 s of evidence is not enough")
    }

    @Test("the touch not felt 10 s after \"Hold the phones together\": the ride word, and w confirms with it")
    func rideWordAfterTenSecondsOfHolding() {
        var guide = ScriptedGuide(aids: .none, ride: Self.wordRide)
        guide.walk(seconds: 4) { _ in 1.0 }
        guide.walk(seconds: 3) { t in max(0.02, 1.0 - 0.5 * t) }
        let holdAt = try? #require(guide.actions.first { if case .cue(let c) = $0.action { c.description == "\"Hold the phones together.\"" } else { false } }?.time)
        guide.walk(seconds: 12) { _ in 0.02 }
        let offer = "\"Ask the driver for the ride word. Your ride word is river candle. If the driver says it, press w.\""
        let offeredAt = guide.actions.first { if case .cue(let c) = $0.action { c.description == offer } else { false } }?.time
        #expect(offeredAt != nil, "\(guide.cues)")
        if let holdAt, let offeredAt { #expect(offeredAt - holdAt >= 10 && offeredAt - holdAt < 10.2) }
        #expect(guide.cues.filter { $0 == offer }.count == 1, "offered once")
        guide.press(.rideWord)
        #expect(guide.core.takeOutbox() == [.confirmByWord("river candle")])
        guide.press(.rideWord)
        #expect(guide.core.takeOutbox().isEmpty, "one post at a time")
        guide.record(guide.core.handle(.wordAnswered(time: guide.time, .rejected("that is not this ride's ride word"))))
        #expect(guide.cues.last == "\"The ride word did not confirm the ride: that is not this ride's ride word.\"")
        guide.press(.rideWord)
        #expect(guide.core.takeOutbox() == [.confirmByWord("river candle")])
        guide.record(guide.core.handle(.wordAnswered(time: guide.time, .confirmed)))
        #expect(guide.cues.last == "\"Ride confirmed by the ride word. Your driver is Ben, blue Toyota Prius.\"")
        #expect(guide.core.state == .confirmed && guide.actions.last?.action == .finished)
    }

    @Test("a driver who walked over is beside her: the ride word after 3 s within reach, without waiting for a touch")
    func rideWordOnceAComingDriverIsBeside() {
        var guide = ScriptedGuide(aids: .all, ride: Self.wordRide)
        guide.walk(seconds: 3) { _ in 15 }
        guide.record(guide.core.handle(.driverMeeting(time: guide.time, .coming)))
        let offer = "\"Ask the driver for the ride word. Your ride word is river candle. If the driver says it, press w.\""
        // He walks over; still farther than reach, no word yet.
        guide.walk(seconds: 10) { t in max(3, 15 - 1.25 * t) }
        #expect(!guide.cues.contains(offer), "\(guide.cues)")
        // Beside her, a metre away, the phones not touching.
        let besideFrom = guide.time
        guide.walk(seconds: 6) { _ in 0.8 }
        let offeredAt = guide.actions.first { if case .cue(let c) = $0.action { c.description == offer } else { false } }?.time
        #expect(offeredAt != nil, "\(guide.cues)")
        if let offeredAt { #expect(offeredAt - besideFrom >= GuideCore.rideWordBesideDriver && offeredAt - besideFrom < 5.5) }
        // Without a driver coming, a passenger a metre from the car is not offered the word so soon.
        var alone = ScriptedGuide(aids: .all, ride: Self.wordRide)
        alone.walk(seconds: 3) { _ in 15 }
        alone.walk(seconds: 6) { _ in 0.8 }
        #expect(!alone.cues.contains(offer), "\(alone.cues)")
    }

    @Test("w offers the ride word at once; without one (no ride key) nothing")
    func rideWordOnAKey() {
        var guide = ScriptedGuide(aids: .none, ride: Self.wordRide)
        guide.walk(seconds: 2) { _ in 8 }
        guide.press(.rideWord)
        #expect(guide.cues.last?.contains("Your ride word is river candle.") == true)
        #expect(guide.core.takeOutbox().isEmpty, "the first press says it; the second, once the driver said it, confirms")
        var none = ScriptedGuide(aids: .none)
        none.walk(seconds: 2) { _ in 8 }
        let before = none.cues.count
        none.press(.rideWord)
        #expect(none.cues.count == before && none.core.takeOutbox().isEmpty)
    }
}

/// The passenger's distance as the driver's device says it (part 2): the guide's claim code,
/// so only what the level supports; a nearer claim after a farther one is "getting closer".
@Suite("Driver's device: the passenger's distance")
struct DriverDistanceClaimsTests {
    /// The level of the ideal line (−59 dBm at 1 m, n = 2) at `distance`, through a ranger.
    static func estimate(_ ranger: inout Ranger, _ distance: Double, at time: Double) -> RangeEstimate {
        ranger.update(time: time, rssi: (-59 - 20 * Foundation.log10(distance)).rounded())
    }

    @Test func claimsAreTrueBoundsSaidOnChangeAndCloserIsSaid() {
        var claims = DriverDistanceClaims(calibration: ScriptedGuide.matchedLine)
        var ranger = Ranger(calibration: ScriptedGuide.matchedLine)
        var said: [(Double, String)] = []
        var t = 0.0
        // 16 m for 8 s, then 6 m for 8 s.
        while t < 16 {
            if let words = claims.claim(Self.estimate(&ranger, t < 8 ? 16 : 6, at: t), at: t) { said.append((t, words)) }
            t += 0.1
        }
        // What is said is a claim of the guide's own code (its words, its numbers), said on a
        // change only, spaced, and a nearer one after a farther one is "getting closer".
        #expect(said.count == 2, "\(said)")
        if said.count == 2 {
            #expect(said[1].0 - said[0].0 >= 5, "spaced: \(said)")
            #expect(!said[0].1.hasPrefix("getting closer") && said[1].1.hasPrefix("getting closer, "), "\(said)")
            let numbers = said.map { Int($0.1.split(whereSeparator: { !$0.isNumber }).first ?? "") ?? 0 }
            #expect(numbers[1] < numbers[0], "\(said)")
        }
        #expect(said.allSatisfy { $0.1.hasSuffix("meters away") || $0.1.hasSuffix("within reach") }, "\(said)")
        // Without a calibration the level supports only a bound, never a number it cannot stand behind.
        var guessed = DriverDistanceClaims(calibration: Calibration(model: .default))
        var guessedRanger = Ranger(calibration: Calibration(model: .default))
        var words: [String] = []
        for step in 0..<30 {
            let time = Double(step) * 0.1
            if let w = guessed.claim(Self.estimate(&guessedRanger, 16, at: time), at: time) { words.append(w) }
        }
        #expect(words.allSatisfy { !$0.hasPrefix("about") }, "\(words)")
    }

    @Test func theDriversCoreSaysItWithTheNotesOnce() {
        var core = DriverCore(identity: ScriptedGuide.identity, calibration: ScriptedGuide.matchedLine, autoConfirm: true,
                              meeting: DriverMeeting(passengerName: "Ana", notes: "white cane, guide dog"),
                              claims: DriverDistanceClaims(calibration: ScriptedGuide.matchedLine))
        var told: [String] = []
        var t = 0.0
        while t < 16 {
            let unix = ScriptedGuide.base + t
            let beacon = ScriptedGuide.identity.identity(of: .passenger, slot: ScriptedGuide.identity.slot(at: unix)).beacon(measuredPower: -59)
            let rssi = (-59 - 20 * Foundation.log10(t < 8 ? 16.0 : 6.0)).rounded()
            for action in core.handle(.sighting(time: t, unixTime: unix, rssi: rssi, beacon: beacon)) {
                if case .tell(let words) = action { told.append(words) }
            }
            t += 0.1
        }
        #expect(told.first?.hasPrefix("Ana is ") == true && told.first?.hasSuffix("meters away. Look for: white cane, guide dog.") == true, "\(told)")
        #expect(told.dropFirst().allSatisfy { !$0.contains("Look for") } && told.last?.hasPrefix("Ana is getting closer") == true, "\(told)")
    }
}
