import Testing
@testable import BeaconCore

@Suite struct TouchTests {
    @Test func firesOnTheRealContactPlateauAndNotAt30cm() throws {
        // Herald test 22 (iPhone 6 Plus ↔ iPhone 6S): 1 and 2 cm, then 30 cm, at the phones'
        // own 2–6 s sample spacing; calibration from the whole recording.
        let trace = try Fixtures.trace("herald-test22A-contact-and-30cm.csv")
        let calibration = try Fixtures.calibration("herald-test22A.calibration.json")
        let estimates = range(trace.samples.map { ($0.time, $0.rssi) }, calibration: calibration)
        let rows = zip(trace.samples, estimates)
        let contact = rows.filter { $0.0.trueDistance! <= 0.02 }.map(\.1)
        let apart = rows.filter { $0.0.trueDistance! >= 0.3 }.map(\.1)
        // After the dwell (3 samples at each position's start), every contact sample is a touch.
        let flagged = contact.dropFirst(3).filter(\.touch).count
        #expect(Double(flagged) / Double(contact.count - 3) > 0.9)
        #expect(!apart.contains { $0.touch })
        #expect(contact.dropFirst(3).allSatisfy { $0.touch == ($0.zone == .touch) })
    }

    @Test func usesThePairsLineWithoutAMeasuredThreshold() {
        let model = PathLossModel(txPower: -60, exponent: 2)  // touch level -60 + 9.5 + 8·2 = -34.5 dBm
        let ranger = Ranger(model: model)
        #expect(abs(ranger.touchDetector.threshold - TouchLevelRule.default.threshold(for: model)) < 1e-9)
        // Touching at ≈ -28 dBm is a touch; 10 cm (≈ -40 dBm) is not.
        let touching = range((0..<30).map { (Double($0) / 10, -28.0) }, calibration: Calibration(model: model))
        #expect(touching.suffix(25).allSatisfy { $0.touch })
        let close = range((0..<30).map { (Double($0) / 10, model.rssi(atDistance: 0.1)) }, calibration: Calibration(model: model))
        #expect(!close.contains { $0.touch })
    }

    @Test func aSingleStrongPacketIsNotATouch() {
        var samples = (0..<100).map { (Double($0) / 10, -62.0) }
        samples[50].1 = -20
        samples[51].1 = -21  // even two reflections in a row
        let estimates = range(samples)
        #expect(!estimates.contains { $0.touch })
    }

    @Test func phonesThatDifferBy30dBBothTouch() {
        // The same contact, one phone 30 dB less sensitive, each with its own calibration.
        for offset in [0.0, -30.0] {
            let model = PathLossModel(txPower: -55 + offset, exponent: 2)
            var rng = SeededRandom(seed: 8)
            let samples = (0..<60).map { i in
                (Double(i) / 10, i < 20 ? model.rssi(atDistance: 1) + rng.gaussian() : model.rssi(atDistance: 0.01) + rng.gaussian())
            }
            let estimates = range(samples, calibration: Calibration(model: model))
            #expect(estimates[30...].allSatisfy { $0.touch }, "offset \(offset)")
            #expect(!estimates[..<20].contains { $0.touch })
        }
    }

    @Test func endsWhenThePhonesPartAndWhenTheSignalIsLost() {
        let model = PathLossModel(txPower: -60, exponent: 2)
        var ranger = Ranger(model: model)
        for i in 0..<30 { _ = ranger.update(time: Double(i) / 10, rssi: -25) }
        #expect(ranger.noSample(at: 3.0).touch)
        // Lost: no packets for longer than the staleness limit.
        #expect(!ranger.noSample(at: 2.9 + Ranger.defaultStaleAfter + 0.1).touch)
        // Parted: back in touch, then pulled to 20 cm. (After more than `calmTime` of a steady
        // signal: a carried phone holds drops back for a body fade's length, see CarriedFadeTests.)
        for i in 0..<30 { _ = ranger.update(time: 20 + Double(i) / 10, rssi: -25) }
        var parted: [Bool] = []
        for i in 0..<30 { parted.append(ranger.update(time: 23 + Double(i) / 10, rssi: model.rssi(atDistance: 0.2)).touch) }
        #expect(parted.suffix(20).allSatisfy { !$0 })
    }

    @Test func holdsThroughAFadeWhilePressedTogether() {
        var samples = (0..<60).map { (Double($0) / 10, -25.0) }
        samples[40].1 = -60  // one packet lost in a fade
        let estimates = range(samples, calibration: Calibration(model: PathLossModel(txPower: -60, exponent: 2)))
        #expect(estimates[10...].allSatisfy { $0.touch })
    }
}
