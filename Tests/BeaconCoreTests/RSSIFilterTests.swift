import Testing
@testable import BeaconCore

@Suite struct RSSIFilterTests {
    /// Level -60 dBm with Gaussian noise σ at `rate` Hz for `seconds`, starting at `start`.
    static func noisy(level: Double, sigma: Double = 2, seconds: Double, rate: Double = 10,
                      start: Double = 0, rng: inout SeededRandom) -> [(Double, Double)] {
        (0..<Int(seconds * rate)).map { i in (start + Double(i) / rate, (level + sigma * rng.gaussian()).rounded()) }
    }

    @Test func ignoresASingleSpikeAndASingleFade() {
        var rng = SeededRandom(seed: 1)
        var samples = Self.noisy(level: -60, seconds: 10, rng: &rng)
        samples[60].1 = -35  // one reflected packet
        samples[80].1 = -90  // one deep fade
        var filter = RSSIFilter()
        var levels: [Double] = []
        for (t, r) in samples { levels.append(filter.update(time: t, rssi: r)) }
        #expect(abs(levels[60] - levels[59]) < 0.3)
        #expect(abs(levels[80] - levels[79]) < 0.3)
        #expect(filter.reinitialisations == 0)
    }

    @Test func followsASustained15dBStepWithinOneSecond() {
        for (from, to) in [(-75.0, -60.0), (-60.0, -75.0)] {
            var rng = SeededRandom(seed: 2)
            let samples = Self.noisy(level: from, seconds: 20, rng: &rng)
                + Self.noisy(level: to, seconds: 10, start: 20, rng: &rng)
            var filter = RSSIFilter()
            var levels: [(Double, Double)] = []
            for (t, r) in samples { levels.append((t, filter.update(time: t, rssi: r))) }
            // Settled as the scorer defines it: from 1 s after the step on, every estimate at
            // least 90 % of the way to the new level (and no wild overshoot).
            let target = from + 0.9 * (to - from)
            let after = levels.filter { $0.0 >= 21 }.map(\.1)
            #expect(after.allSatisfy { (to > from ? $0 >= target : $0 <= target) && abs($0 - to) < 2.5 },
                    "step \(from) → \(to)")
            // And not before the step: the old level held.
            let before = levels.filter { $0.0 >= 5 && $0.0 < 20 }.map(\.1)
            #expect(before.allSatisfy { abs($0 - from) < 1.5 })
        }
    }

    @Test func isCalmerThanRawAndTheKalmanJSPresetAtRest() {
        for seed in UInt64(10)..<15 {
            var rng = SeededRandom(seed: seed)
            let samples = Self.noisy(level: -70, sigma: 3, seconds: 60, rng: &rng)
            var filter = RSSIFilter()
            let levels = samples.map { filter.update(time: $0.0, rssi: $0.1) }.dropFirst(30)
            let raw = samples.map(\.1).dropFirst(30)
            let reference = kalmanJS(samples.map(\.1)).dropFirst(30)
            #expect(standardDeviation(levels) < 0.2 * standardDeviation(raw))
            #expect(standardDeviation(levels) <= standardDeviation(reference))
        }
    }

    @Test func levelIsMedianLikeUnderSkewedFades() {
        // Multipath: mostly -60, but one packet in six fades by 8–15 dB.
        var rng = SeededRandom(seed: 3)
        var filter = RSSIFilter()
        var levels: [Double] = []
        for i in 0..<600 {
            let fade = i % 6 == 5 ? -8 - 7 * Double.random(in: 0..<1, using: &rng) : 0
            levels.append(filter.update(time: Double(i) / 10, rssi: -60 + fade + rng.gaussian()))
        }
        // The mean of that signal is ≈ -61.9; the filter should stay at the typical -60.
        let settled = levels[100...]
        #expect(abs(settled.reduce(0, +) / Double(settled.count) - (-60)) < 0.5)
    }

    @Test func uncertaintyGrowsOverAGapAndTheNextSampleIsTrusted() {
        var rng = SeededRandom(seed: 4)
        var filter = RSSIFilter()
        for (t, r) in Self.noisy(level: -70, seconds: 10, rng: &rng) { filter.update(time: t, rssi: r) }
        let settledVariance = filter.levelVariance
        // 20 s of silence, then the beacon is 6 dB stronger (a single sample, within the gate).
        let level = filter.update(time: 30, rssi: -64)
        #expect(filter.levelVariance > settledVariance)
        #expect(level > -66.5, "after a long gap the new reading should dominate, got \(level)")
    }

    @Test func ignoresNonFiniteInput() {
        var filter = RSSIFilter()
        filter.update(time: 0, rssi: -60)
        #expect(filter.update(time: 0.1, rssi: .nan) == -60)
        #expect(filter.update(time: .infinity, rssi: -50) == -60)
    }

    @Test func settlesOnTheRealStepFixture() throws {
        // Herald test 10 (Samsung A10 ↔ A20), 3.0 m then 0.5 m, at the phones' own ~1.3 Hz.
        let trace = try Fixtures.trace("herald-test10A-step-3m-to-0.5m.csv")
        var filter = RSSIFilter()
        let levels = trace.samples.map { filter.update(time: $0.time, rssi: $0.rssi) }
        let near = trace.samples.filter { $0.trueDistance == 0.5 }.map(\.rssi).sorted()
        let far = trace.samples.filter { $0.trueDistance == 3.0 }.map(\.rssi).sorted()
        let nearMedian = near[near.count / 2], farMedian = far[far.count / 2]
        let stepIndex = trace.samples.firstIndex { $0.trueDistance == 0.5 }!
        // Within 5 samples of the step, and from then on, 90 % of the way to the new level.
        let target = farMedian + 0.9 * (nearMedian - farMedian)
        let afterStep = levels[(stepIndex + 5)...]
        #expect(afterStep.allSatisfy { nearMedian > farMedian ? $0 >= target - 1 : $0 <= target + 1 })
    }
}
