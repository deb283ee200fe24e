import BeaconCore
import Foundation
@testable import Guide
@testable import GuideSimulation
import RideSession
import Testing

/// The street simulator at the product's own settings (issue 34): the transmit power the
/// product asks for, and reports that follow the interval it advertises at.
@Suite struct SimulatorProductSettingsTests {
    /// Herald's Android transmitters advertised at low power; the product asks for the highest,
    /// so their pairs are raised by the fitted offset, every level alike, and the others are
    /// left as recorded. The set names real traces: 15 of the 26.
    @Test func lowPowerPairsAreRaisedByTheOffsetOthersAsRecorded() {
        let pairs = CommittedFits.touchPairs.pairs
        #expect(NearField.lowPowerTransmitterTraces.isSubset(of: Set(pairs.map(\.trace))))
        #expect(pairs.filter { NearField(pair: $0).lowPowerTransmitter }.count == 15)
        for pair in pairs {
            let raised = NearField(pair: pair).atProductPower(lowPowerOffset: 16.5).pair
            let shift = NearField(pair: pair).lowPowerTransmitter ? 16.5 : 0
            #expect(abs(raised.levelAt1m - pair.levelAt1m - shift) < 1e-9, "\(pair.trace)")
            #expect(zip(raised.levels, pair.levels).allSatisfy { abs($0.mean - $1.mean - shift) < 1e-9 && $0.sd == $1.sd && $0.distance == $1.distance })
            #expect(raised.contactStep == pair.contactStep)
        }
        // The street draws the raised pair: a walk's channel has the product's 1 m level.
        var parameters = StreetParameters()
        parameters.lowPowerOffset = 0
        let levels = (1...40).map { seed -> (Double, Double) in
            var a = SeededRandom(seed: UInt64(seed)), b = SeededRandom(seed: UInt64(seed))
            let recorded = StreetScene(parameters: parameters, startDistance: 25, walker: Walker.Parameters(), rng: &a).channel.txPowerAt1m
            let product = StreetScene(parameters: StreetParameters(), startDistance: 25, walker: Walker.Parameters(), rng: &b).channel.txPowerAt1m
            return (recorded, product)
        }
        #expect(levels.allSatisfy { $0.1 == $0.0 || abs($0.1 - $0.0 - 16.5) < 1e-9 })
        #expect(levels.contains { $0.1 > $0.0 }, "some walk drew a low-power pair")
    }

    /// A receiver hears a fixed share of the advertising events: at 20 ms five times the reports
    /// of 100 ms; with `reportScaling` 0, no more.
    @Test func reportsFollowTheAdvertisingInterval() {
        var rng = SeededRandom(seed: 11)
        let process = ReportProcess.draw(&rng)
        func mean(_ interval: Double, _ scaling: Double) -> Double {
            var r = SeededRandom(seed: 3)
            return (0..<20_000).map { _ in process.nextInterval(&r, advertisingInterval: interval, scaling: scaling) }.reduce(0, +) / 20_000
        }
        let normal = mean(0.1, 1), fast = mean(0.02, 1)
        #expect(abs(normal / fast - 5) < 0.25, "\(normal) s against \(fast) s")
        #expect(abs(mean(0.02, 0) / mean(0.1, 0) - 1) < 0.02)
        var r = SeededRandom(seed: 3), s = SeededRandom(seed: 3)
        #expect(process.nextInterval(&r) == process.nextInterval(&s, advertisingInterval: 0.1, scaling: 1), "100 ms is the recorded rate")
    }

    /// On a helpful walk to a touch both phones advertise every 20 ms once their rule says the
    /// last metre (her guide's "very close" or "hold the phones together"; the driver's device
    /// putting her within 2.4 m), and never before either phone is within a few metres.
    @Test func bothPhonesHurryOnlyInTheLastMetres() async {
        var hurried = 0
        for seed in UInt64(1)...12 {
            var configuration = GuidedWalk.Configuration(seed: seed, startDistance: 25)
            configuration.street = StreetParameters()
            configuration.driver = .helpful
            var walk = GuidedWalk(ride: SimulatedRide.ride, configuration: configuration)
            var fastFar = false, fastNear = (driver: false, passenger: false)
            let policy = MutualProofPolicy()
            _ = await walk.run(unixTime: { SimulatedRide.base + $0 }, onCue: { _, _ in }, onStep: { world in
                let fast = (world.advertisingIntervals.driver == ProductAdvertising.fast, world.advertisingIntervals.passenger == ProductAdvertising.fast)
                if (fast.0 || fast.1), world.trueDistance > 6 { fastFar = true }
                if fast.0 { fastNear.driver = true }
                if fast.1 { fastNear.passenger = true }
            }, prove: { side, observation in policy.prove(side, observation) })
            #expect(!fastFar, "seed \(seed): fast advertising more than 6 m from the car")
            if fastNear.driver && fastNear.passenger { hurried += 1 }
        }
        #expect(hurried >= 6, "both phones hurried in \(hurried) of 12 helpful walks")
    }
}
