import Testing
@testable import BeaconCore

@Suite struct RangerTests {
    @Test func isDeterministic() throws {
        let trace = try Fixtures.trace("herald-test10A-positions.csv")
        let input = trace.samples.map { ($0.time, $0.rssi) }
        #expect(range(input) == range(input))
    }

    @Test func reportsDistanceThroughTheModel() {
        let model = PathLossModel(txPower: -59, exponent: 2)
        let estimates = range((0..<50).map { (Double($0) / 10, model.rssi(atDistance: 4)) }, calibration: Calibration(model: model))
        #expect(abs(estimates.last!.distance - 4) < 1e-6)
        #expect(estimates.last!.zone == .far)
    }

    @Test func estimatesWithoutASampleKeepTheStateUntilStale() {
        var ranger = Ranger(model: .default)
        #expect(ranger.noSample(at: 0).zone == .unknown)
        #expect(ranger.noSample(at: 0).filteredRSSI.isNaN)
        for i in 0..<20 { _ = ranger.update(time: Double(i) / 10, rssi: -70) }
        let fresh = ranger.noSample(at: 2.5)
        #expect(fresh.rssi == nil && fresh.filteredRSSI == -70 && fresh.zone == .far)
        #expect(!ranger.isStale(at: 2.5))
        #expect(ranger.isStale(at: 1.9 + Ranger.defaultStaleAfter + 0.01))
    }

    @Test func slowScannersAreNotStaleBetweenTheirReports() {
        // A phone scanning in the background: one report every 4 s.
        var ranger = Ranger(model: .default)
        for i in 0..<10 { _ = ranger.update(time: Double(i) * 4, rssi: -70) }
        #expect(!ranger.isStale(at: 36 + 5))
        #expect(ranger.isStale(at: 36 + 13))
    }

    @Test func ignoresNonFiniteSamples() {
        var ranger = Ranger(model: .default)
        _ = ranger.update(time: 0, rssi: -70)
        let e = ranger.update(time: 0.1, rssi: .nan)
        #expect(e.filteredRSSI == -70 && e.rssi == nil)
    }
}
