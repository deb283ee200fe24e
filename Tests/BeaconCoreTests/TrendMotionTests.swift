import Testing
@testable import BeaconCore

/// Issue 16 part 4, now the default (BENCHMARKS.md, "Direction from motion on the real
/// walks"): a 12 s window at a lower threshold, the Student-t threshold for small windows, and
/// the change point that restarts the long window after a turn-around.
@Suite struct TrendMotionTests {
    let model = PathLossModel(txPower: -59, exponent: 2)

    /// The default since part 4 (12 s window, false-direction budget per second, Student-t,
    /// change point), optionally without the change point or the Student-t threshold.
    func long(studentize: Bool = true, change: Bool = true) -> TrendEstimator.Parameters {
        var p = TrendEstimator.Parameters()
        p.studentize = studentize
        if !studentize { p.longFalseRate = nil; p.longConfidence = 2.5 }
        p.changeConfidence = change ? 2.5 : nil
        p.restartOnRetract = change
        p.relapseHoldOff = change
        return p
    }

    func previous() -> TrendEstimator.Parameters { .previousDefault }

    func trends(_ samples: [(Double, Double)], _ p: TrendEstimator.Parameters) -> [(Double, Trend)] {
        var ranger = Ranger(calibration: Calibration(model: model), trend: p)
        return samples.map { ($0.0, ranger.update(time: $0.0, rssi: $0.1).trend) }
    }

    /// A receiver at rest as the real ones report it (philotuxo static traces): every 0.455 s,
    /// on one of three advertising channels whose levels differ by a few dB, staying on a
    /// channel for one to four reports, 1 dB of noise, whole dB, one report in eight lost.
    func stillReceiver(minutes: Double, seed: UInt64) -> [(Double, Double)] {
        var rng = SeededRandom(seed: seed)
        let offsets = [0.0, -3.0, -5.0]
        var out: [(Double, Double)] = []
        var channel = 0, left = 0
        for i in 0..<Int(minutes * 60 / 0.455) {
            if left == 0 {
                channel = (channel + 1) % 3
                left = Int.random(in: 1...4, using: &rng)
            }
            left -= 1
            guard Double.random(in: 0..<1, using: &rng) > 0.125 else { continue }
            out.append((Double(i) * 0.455, (-72 + offsets[channel] + rng.gaussian()).rounded()))
        }
        return out
    }

    func onsets(_ trends: [(Double, Trend)]) -> Int {
        var count = 0, previous = Trend.unknown
        for (_, t) in trends {
            if (t == .closer || t == .farther) && t != previous { count += 1 }
            previous = t
        }
        return count
    }

    @Test func studentThresholdGrowsForFewSamples() {
        #expect(abs(TrendEstimator.studentQuantile(2.5, dof: 1000) - 2.5) < 0.01)
        // t with 20 degrees of freedom at the normal's 2.5 σ tail (0.62 %) is 2.76.
        #expect(abs(TrendEstimator.studentQuantile(2.5, dof: 20) - 2.76) < 0.05)
        #expect(TrendEstimator.studentQuantile(3.5, dof: 5) > 6)
    }

    @Test func aStillReceiverAtTheRealRateStaysQuiet() {
        var studentized = 0, plain = 0, minutes = 0.0
        for seed in UInt64(40)..<44 {
            let samples = stillReceiver(minutes: 10, seed: seed)
            minutes += 10
            studentized += onsets(trends(samples, long()))
            plain += onsets(trends(samples, previous()))
        }
        // Small windows at 2.2 Hz hold 7–9 reports: a t-test at 3.5 read as if normal fires
        // on the channel cycle; the Student-t threshold keeps the long window quiet.
        #expect(Double(studentized) / minutes <= 0.1, "studentized long window: \(studentized) in \(minutes) min")
        #expect(studentized < plain, "today's windows: \(plain), studentized long: \(studentized)")
        #expect(plain > 0, "\(plain)")
    }

    @Test func theChangePointWithdrawsATurnAroundWithinTwoSeconds() {
        // 8 m to 2 m in 6 s, turn, back out; 10 Hz, 2 dB (TrendTests' turn-around).
        var rng = SeededRandom(seed: 9)
        let samples = (0..<120).map { i -> (Double, Double) in
            let t = Double(i) / 10
            return (t, (model.rssi(atDistance: t < 6 ? 8 - t : 2 + (t - 6)) + 2 * rng.gaussian()).rounded())
        }
        let with = trends(samples, long())
        #expect(with.contains { $0.0 < 6 && $0.1 == .closer })
        let late = with.filter { $0.0 > 7.5 && $0.1 == .closer }
        #expect(late.isEmpty, "closer \(late.count) times after turning away")
        // Without the restart (and the relapse hold-off, which also stops the re-issue) the 12 s window's memory of the approach says closer after the turn.
        #expect(trends(samples, long(change: false)).contains { $0.0 > 7.5 && $0.1 == .closer })
    }

    @Test func aSlowDistantApproachAtTheRealRateIsAnnounced() {
        // 0.5 m/s from 16 m to 4 m at 2.2 Hz, 4 dB noise: ~0.3–1 dB/s under 4 dB of noise.
        var said = 0, total = 0, wrong = 0, today = 0
        for seed in UInt64(50)..<56 {
            var rng = SeededRandom(seed: seed)
            let samples = (0..<53).map { i -> (Double, Double) in
                let t = Double(i) * 0.455
                return (t, (model.rssi(atDistance: 16 - 0.5 * t) + 4 * rng.gaussian()).rounded())
            }
            let new = trends(samples, long()), old = trends(samples, previous())
            for (i, (t, trend)) in new.enumerated() where t >= 8 {
                total += 1
                if trend == .closer { said += 1 }
                if trend == .farther { wrong += 1 }
                if old[i].1 == .closer { today += 1 }
            }
        }
        #expect(wrong == 0)
        #expect(Double(said) / Double(total) > 0.15, "announced \(said) of \(total) (today's windows \(today))")
        #expect(said > today)
    }
}
