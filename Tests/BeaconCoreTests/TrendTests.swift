import Testing
@testable import BeaconCore

@Suite struct TrendTests {
    let model = PathLossModel(txPower: -59, exponent: 2)

    /// A walker moving along `distance(t)`, packets at 10 Hz with log-normal noise σ.
    func walk(seconds: Double, sigma: Double, seed: UInt64, distance: (Double) -> Double) -> [(Double, Double, Double)] {
        var rng = SeededRandom(seed: seed)
        return (0..<Int(seconds * 10)).map { i in
            let t = Double(i) / 10
            let d = distance(t)
            return (t, (model.rssi(atDistance: d) + sigma * rng.gaussian()).rounded(), d)
        }
    }

    @Test func abstainsOnLongNoisyStationarySignals() {
        var issued = 0, total = 0
        for seed in UInt64(100)..<110 {
            var rng = SeededRandom(seed: seed)
            var ranger = Ranger(model: model)
            var drift = 0.0
            for i in 0..<6000 {  // 10 minutes at 10 Hz
                // 4 dB packet noise, half of it correlated from packet to packet (fading that
                // changes over a few hundred milliseconds as people move nearby).
                drift = 0.7 * drift + (1 - 0.7 * 0.7).squareRoot() * 2.8 * rng.gaussian()
                let e = ranger.update(time: Double(i) / 10, rssi: (-70 + drift + 2.8 * rng.gaussian()).rounded())
                if i >= 50 {
                    total += 1
                    if e.trend == .closer || e.trend == .farther { issued += 1 }
                }
            }
        }
        let rate = Double(issued) / Double(total)
        #expect(rate < 0.02, "issued a direction on \(rate * 100) % of stationary samples")
    }

    @Test func abstainsOnTheRealStaticFixture() throws {
        // Herald static positions, at the phones' own timing: nobody moved within a position.
        let trace = try Fixtures.trace("herald-test12B-positions.csv")
        let estimates = range(trace.samples.map { ($0.time, $0.rssi) })
        let issued = estimates.filter { $0.trend == .closer || $0.trend == .farther }.count
        #expect(Double(issued) / Double(estimates.count) < 0.02)
    }

    @Test func isRightOnAClearApproachAndDeparture() {
        for seed in UInt64(1)...4 {
            for approaching in [true, false] {
                // 1 m/s between 6 m and 0.5 m (the last few metres to the car), 3 dB packet noise.
                let samples = walk(seconds: 5.5, sigma: 3, seed: seed) { t in approaching ? 6 - t : 0.5 + t }
                let estimates = range(samples.map { ($0.0, $0.1) })
                let right: Trend = approaching ? .closer : .farther
                let wrong: Trend = approaching ? .farther : .closer
                #expect(!estimates.contains { $0.trend == wrong }, "seed \(seed): wrong direction issued")
                // Once two seconds of signal exist, the direction is announced on most samples.
                let settled = estimates.filter { $0.time >= 2 }
                let said = settled.filter { $0.trend == right }.count
                #expect(Double(said) / Double(settled.count) > 0.5, "seed \(seed): \(said) of \(settled.count)")
            }
        }
    }

    @Test func aOneHertzScannerStillGetsADirection() {
        // A phone reporting once a second: 6 m to 1 m at 0.5 m/s, 2 dB noise.
        var rng = SeededRandom(seed: 21)
        let samples = (0..<11).map { i in
            (Double(i), (model.rssi(atDistance: 6 - 0.5 * Double(i)) + 2 * rng.gaussian()).rounded())
        }
        let estimates = range(samples)
        #expect(!estimates.contains { $0.trend == .farther })
        #expect(estimates.suffix(4).allSatisfy { $0.trend == .closer }, "\(estimates.map(\.trend))")
    }

    @Test func withdrawsPromptlyAfterTurningAround() {
        // Walk in 6 s from 8 m to 2 m, turn, walk back out.
        let samples = walk(seconds: 12, sigma: 2, seed: 9) { t in t < 6 ? 8 - t : 2 + (t - 6) }
        let estimates = range(samples.map { ($0.0, $0.1) })
        let closerAfterTurn = estimates.filter { $0.time > 7.5 && $0.trend == .closer }
        #expect(closerAfterTurn.isEmpty, "still said closer \(closerAfterTurn.count) times after turning away")
        #expect(estimates.contains { $0.time < 6 && $0.trend == .closer })
        #expect(estimates.contains { $0.time > 9 && $0.trend == .farther })
    }

    @Test func isUnknownDuringWarmUpAndAfterAGap() {
        var ranger = Ranger(model: model)
        let first = (0..<5).map { ranger.update(time: Double($0) / 10, rssi: -65).trend }
        #expect(first.allSatisfy { $0 == .unknown })
        for i in 5..<40 { _ = ranger.update(time: Double(i) / 10, rssi: -65) }
        #expect(ranger.noSample(at: 4.0).trend == .steady)
        // Three seconds without packets: the old window says nothing about now.
        #expect(ranger.update(time: 7.0, rssi: -65).trend == .unknown)
    }
}
