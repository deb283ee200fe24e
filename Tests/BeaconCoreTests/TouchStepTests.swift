import Testing
@testable import BeaconCore

/// The touch from the step over each device's own last seconds (issue 34), on recorded herald
/// steps of a low-power pair and on constructed signals.
@Suite struct TouchStepTests {
    /// One side of herald test 10 (Samsung A10 ↔ A20, both at ADVERTISE_TX_POWER_LOW: contact
    /// reads −50 dBm, 16 dB under the −33.5 dBm a default calibration asks for), replayed at
    /// 10 Hz as a walk: `seconds` at each distance in `path`, the real reports of that position
    /// in recorded order. Returns (time, rssi, distance).
    static func walk(_ file: String, _ path: [(distance: Double, seconds: Double)]) throws -> [(Double, Double, Double)] {
        let samples = try Fixtures.trace(file).samples
        var out: [(Double, Double, Double)] = []
        for (distance, seconds) in path {
            let rssi = samples.filter { abs(($0.trueDistance ?? -1) - distance) < 1e-6 }.map(\.rssi)
            for k in 0..<Int(seconds * 10) { out.append((Double(out.count) / 10, rssi[k % rssi.count], distance)) }
        }
        return out
    }

    /// Walking in from 3 m to 30 cm. (Not on to 10 cm: in this recording 10 cm reads 16 dB over
    /// 50 cm and 8 dB over 1 m, and a hand stopping there is felt as a touch on both sides,
    /// one of the false touches BENCHMARKS.md counts under "Touch from the step".)
    static let walkIn: [(distance: Double, seconds: Double)] = [(3, 3), (2, 3), (1, 3), (0.5, 3), (0.3, 3)]

    /// Seconds from the first contact report to the first touch (nil: never felt).
    static func secondsToTouch(_ walk: [(Double, Double, Double)]) -> (touch: Double?, beforeContact: Bool) {
        var ranger = Ranger(calibration: Calibration(model: .default), touch: .withStep)
        let estimates = walk.map { ranger.update(time: $0.0, rssi: $0.1) }
        guard let contact = walk.firstIndex(where: { $0.2 == 0 }) else { return (nil, false) }
        let early = estimates[..<contact].contains { $0.touch }
        return (estimates[contact...].first { $0.touch }.map { $0.time - walk[contact].0 }, early)
    }

    @Test func aLowPowerPairFeelsContactOnBothSidesWithinTwoSeconds() throws {
        // The level rule alone (before issue 34) never fires here: contact is −50 dBm.
        var felt: [Double] = []
        for file in ["herald-test10A-positions.csv", "herald-test10B-positions.csv"] {
            let walk = try Self.walk(file, Self.walkIn + [(0, 5)])
            #expect(walk.filter { $0.2 == 0 }.allSatisfy { $0.1 < -40 }, "a low-power contact")
            let (touch, early) = Self.secondsToTouch(walk)
            #expect(!early, "\(file): no touch before contact")
            let seconds = try #require(touch, "\(file): contact felt")
            #expect(seconds <= 2, "\(file)")
            felt.append(seconds)
        }
        // Both sides feel it together (RideWire's `MutualTouchRule.tolerance`: windows that
        // meet within 1 s are one touch).
        #expect(abs(felt[0] - felt[1]) <= 1)
    }

    @Test func anApproachStoppingAt30cmIsNotATouchButTheContactAfterIs() throws {
        for file in ["herald-test10A-positions.csv", "herald-test10B-positions.csv"] {
            // Walking in to 30 cm and holding there 10 s, then touching.
            let walk = try Self.walk(file, Self.walkIn + [(0.3, 10), (0, 3)])
            let (touch, early) = Self.secondsToTouch(walk)
            #expect(!early, "\(file): 30 cm is not a touch")
            #expect(touch != nil, "\(file): the contact after it is")
        }
    }

    @Test func aStepOutOfANullAtADistanceIsNotATouch() {
        // Walking in at −60 dBm, 3 s held still in a −75 dBm null, then a hand's width into a
        // −62 dBm peak: 13 dB over the last seconds, but no higher than the walk in. Then contact.
        var rng = SeededRandom(seed: 34)
        var samples: [(Double, Double)] = []
        func add(_ seconds: Double, _ level: Double) {
            for _ in 0..<Int(seconds * 10) { samples.append((Double(samples.count) / 10, level + rng.gaussian())) }
        }
        add(15, -60); add(3, -75); add(5, -62)
        let apart = samples.count
        add(3, -48)
        var ranger = Ranger(calibration: Calibration(model: .default), touch: .withStep)
        let estimates = samples.map { ranger.update(time: $0.0, rssi: $0.1) }
        #expect(!estimates[..<apart].contains { $0.touch })
        #expect(estimates[(apart + 20)...].allSatisfy { $0.touch })
    }

    @Test func needsAPlateauNotOnePacketAndEndsWhenTheLevelFalls() {
        var step = TouchStep()
        var t = 0.0
        func feed(_ seconds: Double, _ level: Double) -> [Bool] {
            (0..<Int(seconds * 10)).map { _ in t += 0.1; return step.update(time: t, rssi: level) }
        }
        #expect(!feed(5, -70).contains(true))
        // Two strong packets in a row are not a plateau.
        #expect(!feed(0.2, -55).contains(true))
        #expect(!feed(3, -70).contains(true))
        // A sustained step is, once it fills the plateau (0.3 s: the 3rd or 4th report at 10 Hz).
        let touching = feed(2, -55)
        #expect((2...3).contains(touching.firstIndex(of: true) ?? -1))
        #expect(touching.last == true)
        // Pulled apart: the level falls more than `release` below the touch level.
        let parted = feed(1, -55 - TouchStep.Parameters.default.release - 1)
        #expect(parted.last == false)
        step.reset()
        #expect(!step.isTouching)
        // No baseline after a reset: the same level is not a step.
        #expect(!feed(1, -40).contains(true))
    }

    @Test func worksAtFastAdvertisingRates() throws {
        // The same low-power walk re-timed at 50 reports a second (a 20 ms advertiser).
        let walk = try Self.walk("herald-test10A-positions.csv", Self.walkIn + [(0, 3)])
        var ranger = Ranger(calibration: Calibration(model: .default), touch: .withStep)
        let estimates = walk.enumerated().map { i, s in ranger.update(time: Double(i) / 50, rssi: s.1) }
        let contact = try #require(walk.firstIndex { $0.2 == 0 })
        #expect(!estimates[..<contact].contains { $0.touch })
        let first = try #require(estimates[contact...].first { $0.touch })
        #expect(first.time - Double(contact) / 50 <= 1)
    }

    @Test func theLevelRuleAloneMissesTheLowPowerContact() throws {
        // The default detector (the level rule alone, as the guide runs it) never feels it.
        let walk = try Self.walk("herald-test10A-positions.csv", Self.walkIn + [(0, 5)])
        var ranger = Ranger(calibration: Calibration(model: .default))
        #expect(!walk.contains { ranger.update(time: $0.0, rssi: $0.1).touch })
    }
}
