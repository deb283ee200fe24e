import BeaconCore
import Foundation
import Guide
import GuideSimulation
import GuideAudio
import Testing

/// Turn-to-find with a compass, scripted: a passenger turning clockwise on the spot at
/// `degreesPerSecond`, the phone at the chest reporting compass headings at 10 Hz, the car at
/// compass bearing `carDegrees`; the level as in `TurnToFindTests` (the body's shadow behind).
@Suite struct CompassTurnTests {
    struct Turn {
        var cues: [String] = []
        var turnStart: Double?
        /// When the turn had swept 330° (the core's own count).
        var fullTurnAt: Double?
        var stopAt: Double?
        /// The heading "Stop" was said facing, and where the passenger ends after a 0.5 s reaction.
        var stopHeading: Double?
        var restingHeading: Double?
        var method: TurnToFind.Method?
    }

    static func degreesOff(_ heading: Double?, _ car: Double) -> Double {
        heading.map { abs(HeadingBins.difference($0, car)) } ?? .infinity
    }

    /// Presses `f` at 5 s; headings are reported until `compassUntil` (guide time), then never.
    static func turn(carDegrees: Double, startDegrees: Double = 0, degreesPerSecond: Double = 30,
                     compassUntil: Double = .infinity, seconds: Double = 60) -> Turn {
        var core = GuideCore(ride: ScriptedGuide.ride, verbosity: .brief, aids: .none)
        var result = Turn()
        func record(_ actions: [GuideAction]) {
            for case .cue(let cue) in actions { result.cues.append(cue.description) }
        }
        func facing(_ time: Double) -> Double {
            HeadingBins.wrapped(startDegrees + degreesPerSecond * max(0, time - (result.turnStart ?? time)))
        }
        record(core.start(time: 0))
        record(core.handle(.arrived(time: 0)))
        var rng = SeededRandom(seed: 11)
        var time = 0.0, nextAdvert = 0.0, nextHeading = 0.0
        while time < seconds {
            time += 0.05
            if result.turnStart == nil, time >= 5 {
                record(core.handle(.key(time: time, .findDirection)))
                if result.cues.last == "\"Hold the phone against your chest and turn slowly on the spot.\"" { result.turnStart = time }
            }
            if time < compassUntil, nextHeading <= time {
                record(core.handle(.heading(time: time, degrees: facing(time))))
                nextHeading += 0.1
            }
            while nextAdvert <= time {
                let away = HeadingBins.difference(carDegrees, facing(nextAdvert)) * .pi / 180
                let rssi = (TurnToFindTests.level(heading: 0, carBearing: away) + 1.5 * rng.gaussian()).rounded()
                let unix = ScriptedGuide.base + nextAdvert
                record(core.handle(.sighting(time: nextAdvert, unixTime: unix, rssi: rssi, beacon: ScriptedGuide.driverBeacon(at: unix))))
                nextAdvert += 0.1
            }
            record(core.handle(.tick(time: time)))
            if result.fullTurnAt == nil, core.turn.bins.coveredDegrees >= 330 { result.fullTurnAt = time }
            if result.cues.last == "\"Stop. The car is ahead of you.\"" {
                result.stopAt = time
                result.stopHeading = facing(time)
                result.restingHeading = facing(time + 0.5)
                result.method = core.turn.lastStop
                return result
            }
        }
        return result
    }

    /// Paces in degrees per second; negative turns anticlockwise.
    @Test(arguments: [(0.0, 30.0), (90.0, 30.0), (200.0, 30.0), (300.0, 30.0), (120.0, 15.0), (250.0, 45.0), (200.0, -30.0)])
    func withACompassStopIsSaidFacingTheStrongestHeadingWhateverThePace(car: Double, pace: Double) throws {
        let turn = Self.turn(carDegrees: car, startDegrees: 40, degreesPerSecond: pace)
        let stopAt = try #require(turn.stopAt, "no stop: \(turn.cues.suffix(5))")
        #expect(turn.method == .compass)
        // Said half a second's turn before the car (the passenger's reaction), so they come to
        // rest facing it: within the ±20° window, a few degrees more for the fit on noisy bins.
        #expect(Self.degreesOff(turn.stopHeading, car) <= 25 + abs(pace) / 2, "said facing \(turn.stopHeading!), car at \(car)")
        #expect(Self.degreesOff(turn.restingHeading, car) <= 12, "stopped facing \(turn.restingHeading!), car at \(car)")
        // Never before the turn has swept 330°, however slow.
        let full = try #require(turn.fullTurnAt)
        #expect(stopAt >= full)
        // 33 bins of 10° faced: at least 310° swept (the first and last bins may be entered
        // just before their edge), so a full turn at `pace` takes 310/pace s or more.
        #expect(full - turn.turnStart! >= 310 / abs(pace), "a full turn at \(pace)°/s takes \(310 / abs(pace)) s or more")
    }

    @Test func facingTheCarAtTheStartIsNotEnoughStopWaitsForTheFullTurn() throws {
        let turn = Self.turn(carDegrees: 45, startDegrees: 40)
        let stopAt = try #require(turn.stopAt)
        #expect(turn.method == .compass)
        // The car is ahead at once, but only a full turn says which way is strongest: the
        // next pass, at 330° and on (11 s at 30°/s).
        #expect(stopAt - turn.turnStart! >= 11, "stopped after \(stopAt - turn.turnStart!) s")
        #expect(Self.degreesOff(turn.restingHeading, 45) <= 12)
    }

    @Test func aCompassThatFallsSilentHandsTheTurnBackToTiming() throws {
        // Headings for the turn's first 4 s, then none: timing (30°/s assumed, as turned here).
        let turn = Self.turn(carDegrees: 150, startDegrees: 0, compassUntil: 9)
        try #require(turn.stopAt != nil, "no stop after the compass went silent: \(turn.cues.suffix(5))")
        #expect(turn.method == .timing)
        #expect(Self.degreesOff(turn.restingHeading, 150) <= 35, "stopped facing \(turn.restingHeading!)")
        // And no compass at all times the turn too.
        let never = Self.turn(carDegrees: 150, compassUntil: 0)
        #expect(never.method == .timing)
        #expect(never.fullTurnAt == nil)
    }

    @Test(arguments: [355.0, 5.0, 350.0])
    func aTurnAcrossNorthFindsACarAcrossNorth(car: Double) throws {
        let turn = Self.turn(carDegrees: car, startDegrees: 300)
        try #require(turn.stopAt != nil)
        #expect(turn.method == .compass)
        #expect(Self.degreesOff(turn.restingHeading, car) <= 12, "stopped facing \(turn.restingHeading!), car at \(car)")
    }

    @Test func headingBinsSweepTheShortWayRoundNorth() {
        var bins = HeadingBins()
        bins.turned(to: 350)
        bins.turned(to: 10)
        // 350 → 10 through north: bins 35, 0 and 1, not the 34 the long way.
        #expect(bins.coveredDegrees == 30)
        #expect(HeadingBins.difference(10, 350) == 20)
        #expect(HeadingBins.difference(350, 10) == -20)
        // A level peaked across north: the strongest heading comes out near 355°, not 175°.
        var peaked = HeadingBins()
        for step in 0..<72 {
            let heading = Double(step) * 5
            peaked.turned(to: heading)
            peaked.add(rssi: -70 - 10 * (1 - cos(HeadingBins.difference(heading, 355) * .pi / 180)), at: heading)
        }
        #expect(peaked.coveredDegrees == 360)
        #expect(abs(HeadingBins.difference(peaked.strongest ?? 175, 355)) <= 5, "\(String(describing: peaked.strongest))")
    }

    @Test func theSimulatedCompassReadsTheWalkersHeadingClockwiseFromNorth() {
        #expect(abs(SimulatedCompass.compassDegrees(heading: .pi / 2)) < 1e-9, "+y is north")
        #expect(abs(SimulatedCompass.compassDegrees(heading: 0) - 90) < 1e-9, "+x is east")
        #expect(abs(SimulatedCompass.compassDegrees(heading: -.pi / 2) - 180) < 1e-9)
        var compass = SimulatedCompass(seed: 1)
        #expect(compass.reading(at: 0, heading: 0) != nil)
        #expect(compass.reading(at: 0.05, heading: 0) == nil, "10 Hz, not every step")
        #expect(compass.reading(at: 0.1, heading: 0) != nil)
    }
}

/// The simulator's walker with a phone compass: turn-to-find in `GuidedWalk` (and so the demo
/// and GuideBenchmark with `--simulated-compass`) stops by the compass, not the clock.
@Suite struct SimulatedCompassWalkTests {
    @Test func theWalkersCompassDecidesItsTurns() async {
        var stops = 0, walksWithATurn = 0
        // Most walks never need a turn; the first few that do are enough.
        for seed in 1...60 as ClosedRange<UInt64> where walksWithATurn < 3 {
            var configuration = GuidedWalk.Configuration(seed: seed)
            configuration.aids = .turn
            configuration.compass = SimulatedCompass.Parameters()
            var walk = GuidedWalk(ride: ScriptedGuide.ride, configuration: configuration)
            let policy = MutualProofPolicy()
            let summary = await walk.run(unixTime: { ScriptedGuide.base + $0 }, onCue: { _, _ in },
                                         prove: { side, observation in policy.prove(side, observation) })
            guard let said = summary.cues["say:car_ahead"], said > 0 else { continue }
            stops += said
            walksWithATurn += 1
            #expect(walk.guide.turn.lastStop == .compass, "seed \(seed)")
        }
        #expect(stops > 0, "no walk turned on the spot")
    }
}
