import Testing
@testable import BeaconCore

@Suite struct ZoneTests {
    let model = PathLossModel(txPower: -59, exponent: 2)

    @Test func classifiesDistances() {
        for (d, zone) in [(0.2, ProximityZone.immediate), (1.0, .near), (2.5, .near), (6, .far)] {
            var zones = ZoneClassifier(model: model)
            #expect(zones.update(level: model.rssi(atDistance: d)) == zone, "\(d) m")
        }
        var zones = ZoneClassifier(model: model)
        #expect(zones.update(level: .nan) == .unknown)
    }

    @Test func doesNotFlapAroundABoundary() {
        var zones = ZoneClassifier(model: model)
        let boundary = model.rssi(atDistance: ZoneClassifier.nearDistance)
        var seen: [ProximityZone] = []
        var rng = SeededRandom(seed: 5)
        // Start clearly near, then dither ±1 dB around the near/far boundary for a minute.
        _ = zones.update(level: boundary + 3)
        for _ in 0..<600 {
            seen.append(zones.update(level: boundary + Double.random(in: -1...1, using: &rng)))
        }
        #expect(Set(seen) == [.near])
        // A clear move beyond the band does change the zone, and coming back needs the band too.
        #expect(zones.update(level: boundary - 2) == .far)
        #expect(zones.update(level: boundary + 1) == .far)
        #expect(zones.update(level: boundary + 2) == .near)
    }

    @Test func stepsThroughZonesWhenApproaching() {
        var zones = ZoneClassifier(model: model)
        let path = stride(from: 8.0, through: 0.2, by: -0.1).map { zones.update(level: model.rssi(atDistance: $0)) }
        var order: [ProximityZone] = []
        for z in path where order.last != z { order.append(z) }
        #expect(order == [.far, .near, .immediate])
    }

    @Test func rangerReportsUnknownWhenTheSignalIsLost() {
        var ranger = Ranger(model: model)
        for i in 0..<50 { _ = ranger.update(time: Double(i) / 10, rssi: -65) }
        #expect(ranger.noSample(at: 5.5).zone == .near)
        let stale = ranger.noSample(at: 4.9 + Ranger.defaultStaleAfter + 0.1)
        #expect(stale.zone == .unknown && stale.trend == .unknown && !stale.touch)
        // A new sample brings the zone back at once.
        #expect(ranger.update(time: 20, rssi: -65).zone == .near)
    }
}
