import BeaconCore
import Testing

/// `LevelSpread`: the raw samples' standard deviation over the last 5 s, what the claim code reads
/// as "carried" (issue 23). `Benchmarks/CarriedRanging/port.py` computes the same figure.
@Suite struct LevelSpreadTests {
    @Test func aSteadySignalHasNoSpreadAndAFadingOneHasItsStandardDeviation() {
        var spread = LevelSpread()
        #expect(spread.value == 0 && spread.count == 0)
        for i in 0..<50 { spread.add(time: Double(i) / 10, rssi: -70) }
        #expect(spread.value == 0)
        var fading = LevelSpread()
        // Alternating -64 / -76: standard deviation 6 dB (a pocket's, pcng).
        for i in 0..<50 { fading.add(time: Double(i) / 10, rssi: i % 2 == 0 ? -64 : -76) }
        #expect(abs(fading.value - 6) < 1e-9)
    }

    @Test func onlyTheLastFiveSecondsCount() {
        var spread = LevelSpread()
        for i in 0..<20 { spread.add(time: Double(i) / 10, rssi: i % 2 == 0 ? -60 : -80) }  // 0-1.9 s: swinging
        for i in 0..<50 { spread.add(time: 7 + Double(i) / 10, rssi: -70) }                    // 7-11.9 s: steady
        #expect(spread.value == 0, "the swings ended more than 5 s ago")
        #expect(spread.count == 50)
        spread.add(time: .nan, rssi: -10)
        spread.add(time: 12.2, rssi: .infinity)
        #expect(spread.value == 0, "non-finite samples are ignored")
        spread.reset()
        #expect(spread.count == 0)
    }
}
