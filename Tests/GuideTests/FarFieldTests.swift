import BeaconCore
import Foundation
import Guide
import GuideAudio
import GuideSimulation
import RideSession
import Testing

/// The guide's far field (issue 35): the satellite vector spoken with its honest uncertainty,
/// the hand-over to the Bluetooth cues, the car's kerb side from its parked course on both
/// traffic sides, and no satellite direction across a road.
@Suite("Guide: the satellite far field")
struct FarFieldTests {
    /// The car parked pointing east (course 90°) at a fixed spot.
    static let car = GeoFix(latitude: 48.8566, longitude: 2.3522, accuracyMeters: 3, courseDegrees: 90, unixTime: 1_700_000_000)

    /// Her fix `behind` metres west of the car along its course and `kerbward` metres south
    /// (the kerb side of a car pointing east in right-hand traffic), with `accuracy`.
    static func her(behind: Double, kerbward: Double, accuracy: Double = 3) -> GeoFix {
        var fix = car.moved(east: -behind, north: -kerbward)
        fix.accuracyMeters = accuracy
        fix.courseDegrees = nil
        return fix
    }

    struct Run {
        var core: GuideCore
        var time = 0.0
        var said: [(time: Double, text: String)] = []

        /// `accuracyFloor`: nil keeps the guide's own (5 m); 0 takes the phones' reports as they are.
        init(traffic: TrafficSide = .right, verbosity: Verbosity = .brief, accuracyFloor: Double? = nil) {
            core = GuideCore(ride: ScriptedGuide.ride, verbosity: verbosity, traffic: traffic)
            if let accuracyFloor { core.farFieldRules.accuracyFloor = accuracyFloor }
            record(core.start(time: 0))
            record(core.handle(.arrived(time: 0)))
        }

        mutating func record(_ actions: [GuideAction]) {
            for case .cue(let cue) in actions {
                if case .speech(let utterance) = cue.sound { said.append((cue.time, utterance.text)) }
            }
        }

        /// `seconds` of fixes once a second (and the compass facing `heading`, when given).
        mutating func fixes(seconds: Int, own: GeoFix, driver: GeoFix = FarFieldTests.car, heading: Double? = nil) {
            for _ in 0..<seconds {
                time += 1
                if let heading { record(core.handle(.heading(time: time, degrees: heading))) }
                record(core.handle(.positions(time: time, own: own, driver: driver)))
                record(core.handle(.tick(time: time)))
            }
        }

        /// The car's signal at `metres` (the ideal line) for `seconds`, 10 a second.
        mutating func signal(seconds: Double, metres: Double) {
            let end = time + seconds
            while time < end - 1e-9 {
                time += 0.1
                let unix = ScriptedGuide.base + time
                let rssi = (-59 - 20 * log10(metres)).rounded()
                record(core.handle(.sighting(time: time, unixTime: unix, rssi: rssi, beacon: ScriptedGuide.driverBeacon(at: unix))))
                record(core.handle(.tick(time: time)))
            }
        }

        func texts(after moment: Double = -1) -> [String] { said.filter { $0.time > moment }.map(\.text) }
    }

    @Test("beyond the signal: the car along the pavement through the compass, a distance every allowed position makes true, her side of the street; then one hand-over to the signal's cues, and the vector is not spoken again")
    func farFieldThenHandOver() throws {
        // Two phones reporting 1 m, taken at their word (no floor).
        var run = Run(accuracyFloor: 0)
        var car = Self.car
        car.accuracyMeters = 1
        run.fixes(seconds: 3, own: Self.her(behind: 25, kerbward: 3, accuracy: 1), driver: car, heading: 90)
        let first = try #require(run.texts().first { $0.hasPrefix("By satellite") })
        #expect(first.hasPrefix("By satellite, the car is ahead of you, along the pavement."), "\(first)")
        #expect(first.hasSuffix("On this side of the street."), "\(first)")
        // Every distance the two accuracies allow at the claim's σ makes the spoken claim true.
        let band = try #require(run.core.farField.spokenBand)
        let vector = SatelliteVector(own: Self.her(behind: 25, kerbward: 3, accuracy: 1), driver: car)
        let bounds = vector.bounds(sigmas: run.core.farFieldRules.claimSigmas)
        #expect(band.isTrue(atDistance: bounds.low) && band.isTrue(atDistance: bounds.high), "\(band) \(bounds)")
        #expect(first.contains("About 30 meters."), "\(first)")
        // Facing the other way, the car is behind her.
        run.fixes(seconds: 12, own: Self.her(behind: 25, kerbward: 3, accuracy: 1), driver: car, heading: 270)
        #expect(run.texts().contains { $0.hasPrefix("By satellite, the car is behind you") }, "\(run.texts())")

        // The signal within reach of the ranger: "Signal found" once, then the signal's cues only.
        let before = run.time
        run.signal(seconds: 2, metres: 3)
        #expect(run.core.farField.handedOver)
        #expect(run.texts(after: before).filter { $0 == "Signal found. Follow the sound." }.count == 1, "\(run.texts(after: before))")
        let handedOver = run.time
        for _ in 0..<20 {
            run.signal(seconds: 1, metres: 3)
            run.fixes(seconds: 1, own: Self.her(behind: 20, kerbward: 3, accuracy: 1), driver: car, heading: 90)
        }
        #expect(!run.texts(after: handedOver).contains { $0.hasPrefix("By satellite") }, "\(run.texts(after: handedOver))")
        // The signal lost, the vector guides again; found again, "Signal found" is not repeated.
        let lost = run.time
        run.fixes(seconds: 25, own: Self.her(behind: 20, kerbward: 3, accuracy: 1), driver: car, heading: 90)
        #expect(run.texts(after: lost).contains { $0.hasPrefix("By satellite") }, "\(run.texts(after: lost))")
        run.signal(seconds: 2, metres: 3)
        #expect(run.core.farField.handedOver)
        #expect(run.texts().filter { $0 == "Signal found. Follow the sound." }.count == 1, "said once a ride")
    }

    @Test("a far signal does not take over from the fixes; without a compass the way is said with the street in front of her")
    func farSignalKeepsTheVector() {
        var run = Run()
        run.fixes(seconds: 2, own: Self.her(behind: 30, kerbward: 3))
        #expect(run.texts().contains { $0.hasPrefix("By satellite, with the street in front of you, the car is to your right") }, "\(run.texts())")
        // 40 m by the level: farther than the fixes say; the vector goes on guiding.
        run.signal(seconds: 3, metres: 40)
        #expect(!run.core.farField.handedOver)
        #expect(!run.texts().contains("Signal found. Follow the sound."))
    }

    @Test("never closer than the two accuracies allow: wide accuracies claim no distance, a leap silences claims, and every claim holds over random fixes")
    func claimsStayWithinTheAccuracies() {
        var wide = Run()
        wide.fixes(seconds: 3, own: Self.her(behind: 25, kerbward: 3, accuracy: 15), driver: { var c = Self.car; c.accuracyMeters = 15; return c }(), heading: 90)
        #expect(wide.core.farField.spokenBand == nil)
        #expect(!wide.texts().contains { $0.contains("meters") }, "\(wide.texts())")

        // A phone reporting 1 m is taken as 5 m (the floor): at 25 m only "More than 5".
        var floored = Run()
        var sharp = Self.car
        sharp.accuracyMeters = 1
        floored.fixes(seconds: 3, own: Self.her(behind: 25, kerbward: 3, accuracy: 1), driver: sharp, heading: 90)
        #expect(floored.core.farField.spokenBand == .moreThan(5), "\(floored.texts())")

        var leap = Run()
        leap.fixes(seconds: 3, own: Self.her(behind: 25, kerbward: 3), heading: 90)
        #expect(leap.core.farField.spokenBand != nil)
        // A 30 m leap in a second: a multipath jump the accuracy does not show. No distance is
        // said until the fixes settle.
        let leapt = leap.time
        leap.fixes(seconds: 15, own: Self.her(behind: 55, kerbward: 3), heading: 90)
        #expect(leap.core.farField.unsettled(at: leap.time))
        #expect(!leap.texts(after: leapt).contains { $0.contains("meters") }, "\(leap.texts(after: leapt))")

        var rng = SeededRandom(seed: 35)
        for _ in 0..<2000 {
            let d = rng.uniform(1...80), angle = rng.uniform(-Double.pi...Double.pi)
            let sigma = rng.uniform(0.5...15)
            let vector = SatelliteVector(east: d * cos(angle), north: d * sin(angle), sigma: sigma, carCourse: nil)
            guard let claim = vector.claim(sigmas: 2.5) else { continue }
            let (low, high) = vector.bounds(sigmas: 2.5)
            let band: DistanceBands.Band = switch claim { case .about(let n): .about(n); case .moreThan(let n): .moreThan(n) }
            #expect(band.isTrue(atDistance: low) && band.isTrue(atDistance: high), "\(claim) for \(low)...\(high)")
        }
    }

    @Test("the car's kerb side from its parked course, right- and left-hand traffic")
    func kerbSideBothTrafficSides() {
        // The car points north. Right-hand traffic: its kerb is east of it; left-hand: west.
        var north = Self.car
        north.courseDegrees = 0
        func side(east: Double, _ traffic: TrafficSide) -> KerbSide {
            var her = north.moved(east: east, north: -10)
            her.accuracyMeters = 2
            return KerbSide.judge(SatelliteVector(own: her, driver: north), traffic: traffic, sigmas: 2.5, halfRoad: 5.7)
        }
        #expect(side(east: 4, .right) == .herSide)
        #expect(side(east: -16, .right) == .across)
        #expect(side(east: -4, .left) == .herSide)
        #expect(side(east: 16, .left) == .across)
        // Halfway across the street the fixes do not tell.
        #expect(side(east: -6, .right) == .unsure)
        // Without the course nothing is judged.
        var unknown = north
        unknown.courseDegrees = nil
        #expect(KerbSide.judge(SatelliteVector(own: north.moved(east: 14, north: 0), driver: unknown), traffic: .right, sigmas: 2.5, halfRoad: 5.7) == .unsure)
    }

    @Test("no satellite direction across a road: a car across is the across-the-street rule's, she stays and the driver is told; beside the car no way is given")
    func noDirectionAcrossTheRoad() {
        var sharp = Self.car
        sharp.accuracyMeters = 1
        for traffic in TrafficSide.allCases {
            var run = Run(traffic: traffic, accuracyFloor: 0)
            // 14 m on the car's road side: right-hand traffic, north of a car pointing east.
            let roadSide = traffic == .right ? 14.0 : -14.0
            run.fixes(seconds: 6, own: Self.her(behind: 20, kerbward: -roadSide, accuracy: 1), driver: sharp, heading: 0)
            #expect(run.texts().contains("Your car is across the street. Stay on the pavement; Ben is coming to your side."), "\(traffic): \(run.texts())")
            #expect(!run.texts().contains { $0.hasPrefix("By satellite") }, "\(traffic): \(run.texts())")
            #expect(run.core.takeOutbox().contains(.carAcross))
            run.fixes(seconds: 15, own: Self.her(behind: 20, kerbward: -roadSide, accuracy: 1), driver: sharp, heading: 0)
            #expect(!run.texts().contains { $0.hasPrefix("By satellite") })
        }
        // Beside the car (level with it, on its kerb side): the fixes do not say which way.
        var beside = Run()
        beside.fixes(seconds: 3, own: Self.her(behind: 0, kerbward: 3), heading: 180)
        #expect(beside.texts().contains { $0.hasPrefix("By satellite, which way along the street") }, "\(beside.texts())")
        #expect(!beside.texts().contains { $0.contains("to your left") || $0.contains("to your right") })
    }

    /// Walking to meet him without a compass she follows the "street in front of you" guess,
    /// which takes her to be on the car's kerb side. On the other pavement (coarse fixes, not
    /// sure enough to call the car across) that sends her away: the fixes' distance grows while
    /// she walks, and her left and right swap and are said at once (seed 10042 on the street
    /// walked 110 m the wrong way for 300 s before).
    @Test("meeting halfway on the other pavement: walking away swaps her left and right")
    func meetingHalfwaySwapsAWrongWay() {
        var run = Run()
        var behind = 25.0
        run.fixes(seconds: 2, own: Self.her(behind: behind, kerbward: -9, accuracy: 12))
        run.record(run.core.handle(.driverMeeting(time: run.time, .coming)))
        let first = run.texts().last ?? ""
        #expect(first.hasPrefix("Ben is walking to you. Walk on along the pavement; stop when you meet.") && first.contains("to your right"), "\(run.texts())")
        let said = run.time
        // She walks the way she was told (west, away from the car) at 1.2 m/s.
        for _ in 0..<40 {
            run.time += 1
            behind += 1.2
            run.record(run.core.handle(.walking(time: run.time, true)))
            run.record(run.core.handle(.positions(time: run.time, own: Self.her(behind: behind, kerbward: -9, accuracy: 12), driver: Self.car)))
            run.record(run.core.handle(.tick(time: run.time)))
            if run.texts(after: said).contains(where: { $0.contains("to your left") }) { break }
        }
        #expect(run.texts(after: said).contains { $0.contains("to your left") }, "the way is turned round: \(run.texts(after: said))")
        #expect(behind - 25 < 40, "within a few tens of metres, not 110: \(behind - 25) m")
    }

    @Test("meeting halfway: the driver coming, she walks on towards the car; his device tells him where she is by satellite")
    func meetingHalfway() {
        var run = Run()
        run.fixes(seconds: 2, own: Self.her(behind: 25, kerbward: 3), heading: 90)
        run.record(run.core.handle(.driverMeeting(time: run.time, .coming)))
        #expect(run.texts().last?.hasPrefix("Ben is walking to you. Walk on along the pavement; stop when you meet. By satellite, the car is ahead of you") == true,
                "\(run.texts())")
        #expect(run.core.farField.halfway)

        var driver = DriverCore(identity: ScriptedGuide.identity, autoConfirm: true, meeting: DriverMeeting(passengerName: "Ana"))
        let told = driver.handle(.positions(time: 1, own: Self.car, passenger: Self.her(behind: 25, kerbward: 3)))
        #expect(told == [.tell("By satellite, Ana is behind the car, more than 5 meters away.")], "\(told)")
        #expect(driver.handle(.positions(time: 3, own: Self.car, passenger: Self.her(behind: 24, kerbward: 3))).isEmpty, "said once until he comes")
    }
}
