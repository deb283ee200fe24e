import BeaconCore
import Foundation
import Guide
import GuideSimulation
import GuideAudio
import Testing

/// Turn-to-find, scripted: a passenger turning on the spot at a known rate with the phone at
/// the chest, the body blocking `bodyLoss` dB behind, the car at bearing `carBearing`.
@Suite struct TurnToFindTests {
    static let ride = ScriptedGuide.ride
    static let turnRate = 2 * Double.pi / 12

    /// The mean level of a phone at the chest facing `heading` with the car at `carBearing`:
    /// the body's loss grows from side-on to behind, as in the simulator's channel.
    static func level(heading: Double, carBearing: Double, bodyLoss: Double = 12, base: Double = -75) -> Double {
        let away = abs(wrapAngle(carBearing - heading))
        return base - (away > .pi / 2 ? bodyLoss * (away - .pi / 2) / (.pi / 2) : 0)
    }

    /// Feeds a guide guided at `distance` with sightings while the passenger turns from
    /// `turnStart` on (heading 0 before), until "Stop"; returns the cues and the heading then.
    static func turn(carBearing: Double, aids: GuideAids, pressF: Bool, noise: Double = 1.5,
                     seconds: Double = 60) -> (cues: [String], stopHeading: Double?, turnStartedAt: Double?) {
        var core = GuideCore(ride: ride, verbosity: .brief, aids: aids)
        var cues: [String] = []
        func record(_ actions: [GuideAction]) {
            for case .cue(let cue) in actions { cues.append(cue.description) }
        }
        record(core.start(time: 0))
        record(core.handle(.arrived(time: 0)))
        var rng = SeededRandom(seed: 3)
        var turnStart: Double?
        var time = 0.0, nextAdvert = 0.0
        while time < seconds {
            time += 0.05
            if pressF, turnStart == nil, time >= 5 { record(core.handle(.key(time: time, .findDirection))) }
            if turnStart == nil, cues.contains("\"Hold the phone against your chest and turn slowly on the spot.\"") { turnStart = time }
            let heading = turnStart.map { turnRate * (time - $0) } ?? 0
            while nextAdvert <= time {
                let rssi = (level(heading: heading, carBearing: carBearing) + noise * rng.gaussian()).rounded()
                let unix = ScriptedGuide.base + nextAdvert
                record(core.handle(.sighting(time: nextAdvert, unixTime: unix, rssi: rssi, beacon: ScriptedGuide.driverBeacon(at: unix))))
                nextAdvert += 0.1
            }
            record(core.handle(.tick(time: time)))
            if cues.last == "\"Stop. The car is ahead of you.\"" {
                // The passenger stops after a reaction of 0.5 s.
                return (cues, wrapAngle(turnRate * (time + 0.5 - turnStart!)), turnStart)
            }
        }
        return (cues, nil, turnStart)
    }

    @Test(arguments: [0.0, 1.0, 2.0, 3.0, -1.5, -2.5])
    func keyFStartsATurnThatStopsFacingTheCar(carBearing: Double) throws {
        let result = Self.turn(carBearing: carBearing, aids: .none, pressF: true)
        let stop = try #require(result.stopHeading, "no stop: \(result.cues.suffix(5))")
        let error = abs(wrapAngle(stop - carBearing)) * 180 / .pi
        #expect(error <= 35, "stopped \(Int(error))° off the car")
        // The tracking tone played, and reached its top step near the best heading.
        #expect(result.cues.contains("[track_5]"))
        #expect(result.cues.contains { ["[track_1]", "[track_2]"].contains($0) }, "the body's shadow is heard as low tones")
        // No direction motifs while turning: a turn is not a walk.
        let start = result.cues.firstIndex(of: "\"Hold the phone against your chest and turn slowly on the spot.\"")!
        #expect(!result.cues[start...].contains("[closer]") && !result.cues[start...].contains("[farther]"))
    }

    @Test func withoutAConfidentDirectionForTenSecondsTheGuideStartsATurnOnlyWhenTheAidsAllow() throws {
        let turned = Self.turn(carBearing: 1.0, aids: .turn, pressF: false)
        let started = try #require(turned.turnStartedAt, "no turn started: \(turned.cues.prefix(8))")
        // Ten seconds after the last confident direction (a "closer" as the filter settles, ≤ 2 s in).
        #expect(started >= 10 && started <= 12.5, "started at \(started): \(turned.cues.prefix(8))")
        #expect(turned.stopHeading != nil)
        let quiet = Self.turn(carBearing: 1.0, aids: .none, pressF: false, seconds: 30)
        #expect(quiet.turnStartedAt == nil)
        #expect(!quiet.cues.contains { $0.hasPrefix("[track_") })
    }

    @Test func trackingTonesRiseInPitchWithTheSignal() {
        // A turn too slow to end within the test: only the tone is under test.
        var timing = TurnToFind.Timing()
        timing.fullTurn = 100
        var turn = TurnToFind(timing: timing)
        turn.begin(at: 0)
        var tones: [Earcon] = []
        // The level climbs 15 dB over the first turn: the tone follows it to the top.
        for step in 1...240 {
            let time = Double(step) * 0.05
            turn.sample(time: time, rssi: -90 + 15 * time / 12)
            if case .tone(let earcon)? = turn.tick(time: time) { tones.append(earcon) }
        }
        #expect(tones.allSatisfy { $0 == .track5 }, "a rising level is always the best so far: \(tones)")
        // Then it falls away from the best: lower tones, step by step.
        var late: [Earcon] = []
        for step in 241...300 {
            let time = Double(step) * 0.05
            turn.sample(time: time, rssi: -75 - 4 * (time - 12))
            if case .tone(let earcon)? = turn.tick(time: time) { late.append(earcon) }
        }
        let ranks = late.compactMap { Earcon.trackingTones.firstIndex(of: $0) }
        #expect(ranks == ranks.sorted(by: >) && ranks.first! > ranks.last!, "\(late)")
    }

    @Test func theWalkerTurnsOnTheSpotUntilTheCarIsAhead() {
        var walker = Walker(distance: 10, rng: SeededRandom(seed: 4))
        walker.hear(.turnOnTheSpot, at: 0)
        var time = 0.0
        // The walker reacts after half a second; from then on it turns on the spot.
        while time < 0.6 {
            time += 0.05
            walker.step(to: time, dt: 0.05)
        }
        let start = walker.position
        var swept = 0.0, heading = walker.heading
        while time < 6.6 {
            time += 0.05
            walker.step(to: time, dt: 0.05)
            swept += wrapAngle(walker.heading - heading)
            heading = walker.heading
        }
        #expect(walker.position == start, "turning on the spot, not walking")
        #expect(walker.spinning)
        #expect(abs(swept - walker.parameters.spinRate * 6) <= walker.parameters.spinRate * 0.05 + 1e-9, "a steady turn: \(swept) rad in 6 s")
        walker.hear(.carAhead, at: time)
        for _ in 0..<40 {
            time += 0.05
            walker.step(to: time, dt: 0.05)
        }
        #expect(!walker.spinning)
        #expect(walker.position.distance(to: start) > 1, "walks on the way it faces")
    }
}
