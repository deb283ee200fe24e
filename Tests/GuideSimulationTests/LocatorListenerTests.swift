import Foundation
import Guide
import GuideSimulation
import GuideAudio
import RideSession
import Testing

/// The simulated listener of the car's locator ticks, and the walks it changes.
@Suite("Simulation: hearing the locator")
struct LocatorListenerTests {
    static func listener(noise: Double, seed: UInt64 = 3) -> LocatorListener {
        var parameters = LocatorListener.Parameters()
        parameters.streetNoise = noise...noise
        return LocatorListener(parameters: parameters, rng: SeededRandom(seed: seed))
    }

    static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    @Test func inQuietTheErrorIsAFewDegreesAheadAndFrontBackConfusionsAreRare() {
        var ears = Self.listener(noise: 40)
        var errors: [Double] = []
        var confusions = 0
        for _ in 0..<2000 {
            let heard = ears.hear(bearing: 0, distance: 10, carClosed: false)!
            if abs(heard) > .pi / 2 { confusions += 1 } else { errors.append(Self.degrees(heard)) }
        }
        let mean = errors.reduce(0, +) / Double(errors.count)
        let sd = (errors.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(errors.count)).squareRoot()
        #expect(abs(mean) < 0.5 && (2.5...3.5).contains(sd), "mean \(mean)°, σ \(sd)°")
        #expect((20...60).contains(confusions), "\(confusions) front/back confusions in 2000 (2 %)")
    }

    @Test func sidewaysSoundsAreLocalisedWorse() {
        var ears = Self.listener(noise: 40)
        let side = (0..<2000).compactMap { _ in ears.hear(bearing: .pi / 2, distance: 10, carClosed: false) }
            .map { Self.degrees(min(abs($0 - .pi / 2), abs(.pi - $0 - .pi / 2))) }
        let spread = (side.map { $0 * $0 }.reduce(0, +) / Double(side.count)).squareRoot()
        #expect((10...14).contains(spread), "σ at 90° \(spread)°")
    }

    @Test func audibilityFallsWithDistanceStreetNoiseAndAClosedCar() {
        var busy = Self.listener(noise: 70)
        #expect(busy.hear(bearing: 0, distance: 4, carClosed: false) != nil)
        #expect(busy.hear(bearing: 0, distance: 25, carClosed: false) == nil, "85 dB at 1 m is 57 dB at 25 m: under 70 dB of traffic")
        #expect(busy.hear(bearing: 0, distance: 4, carClosed: true) == nil, "a closed car takes 25 dB")
        var quiet = Self.listener(noise: 55)
        #expect(quiet.hear(bearing: 0, distance: 25, carClosed: false) != nil)
        #expect(quiet.level(atDistance: 10, carClosed: false) == 65)
    }

    @Test func aWalkerTurnsToWhereTheSoundSeemsToComeFrom() {
        var walker = Walker(distance: 10, rng: SeededRandom(seed: 2))
        let target = walker.heading + 2.0
        walker.hear(.soundFrom(heading: target), at: 0)
        // Reaction 0.5 s, then a quarter turn a second: done within 2 s (veer would blur it later).
        var time = 0.0
        for _ in 0..<40 {
            time += 0.05
            walker.step(to: time, dt: 0.05)
        }
        let offset = abs(atan2(sin(walker.heading - target), cos(walker.heading - target)))
        #expect(offset < 0.1, "heading off by \(offset) rad")
    }

    static func walk(seed: UInt64, aids: GuideAids, noise: ClosedRange<Double>? = nil) async -> WalkSummary {
        var configuration = GuidedWalk.Configuration(seed: seed)
        configuration.aids = aids
        if let noise { configuration.listener.streetNoise = noise }
        var walk = GuidedWalk(ride: SimulatedRide.ride, configuration: configuration)
        let policy = MutualProofPolicy()
        return await walk.run(unixTime: { SimulatedRide.base + $0 }, onCue: { _, _ in },
                              prove: { side, observation in policy.prove(side, observation) })
    }

    /// The request goes through the guide, the service's rule and the driver's core; the
    /// world plays the ticks and the walker hears them.
    @Test(arguments: [9, 13] as [UInt64])
    func withTheLocatorTheCarTicksTheWalkerHearsItAndTheRideIsConfirmed(seed: UInt64) async {
        let summary = await Self.walk(seed: seed, aids: .locator)
        #expect(summary.confirmed)
        #expect(summary.locatorRequests >= 1)
        #expect(summary.locatorTicksPlayed >= 1 && summary.locatorTicksHeard >= 1, "\(summary)")
        // The tick is announced only once the driver's device reports it played (issue 22).
        #expect((summary.cues["say:driver_device"] ?? 0) >= 1, "\(summary.cues)")
        let without = await Self.walk(seed: seed, aids: .none)
        #expect(without.locatorRequests == 0 && without.locatorTicksPlayed == 0)
    }
}
