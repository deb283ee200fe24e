import Testing
@testable import BeaconCore

/// The touch level comes from the pair's own line: the step above its 1 m level, not a dBm.
@Suite struct TouchLevelTests {
    @Test func thresholdIsThePairsOneMetreLevelPlusTheStep() {
        let rule = TouchLevelRule(offset: 10, perExponent: 4)
        let quiet = PathLossModel(txPower: -80, exponent: 1)
        let loud = PathLossModel(txPower: -55, exponent: 1)
        #expect(rule.threshold(for: quiet) == -66)
        #expect(rule.threshold(for: loud) == -41, "30 dB louder phones get a level 25 dB higher: the step is what carries over")
        #expect(rule.step(for: PathLossModel(txPower: -60, exponent: 2.5)) == 20)
    }

    @Test func theLineAloneFindsARealContactPlateauAndNot30cm() throws {
        // Herald test 22 (iPhone 6 Plus ↔ iPhone 6S): the measured touch level dropped, only
        // the pair's line kept (A −54.5 dBm, n 1.0, so the rule's level is −37 dBm).
        let trace = try Fixtures.trace("herald-test22A-contact-and-30cm.csv")
        var calibration = try Fixtures.calibration("herald-test22A.calibration.json")
        calibration.touchRSSI = nil
        let estimates = range(trace.samples.map { ($0.time, $0.rssi) }, calibration: calibration)
        let rows = zip(trace.samples, estimates)
        let contact = rows.filter { $0.0.trueDistance! <= 0.02 }.map(\.1)
        let apart = rows.filter { $0.0.trueDistance! >= 0.3 }.map(\.1)
        #expect(Double(contact.dropFirst(3).filter(\.touch).count) / Double(contact.count - 3) > 0.9)
        #expect(!apart.contains { $0.touch })
    }

    @Test func calibrationsWithoutAMeasuredLevelUseTheShippedRule() {
        let model = PathLossModel(txPower: -70, exponent: 1.5)
        #expect(Calibration(model: model).effectiveTouchRSSI == TouchLevelRule.default.threshold(for: model))
        #expect(Calibration(model: model, touchRSSI: -33).effectiveTouchRSSI == -33)
        #expect(Ranger(model: model).touchDetector.threshold == TouchLevelRule.default.threshold(for: model))
    }

    @Test func theModelRuleIsTheFarFieldFiveCentimetreLevelPlusItsGuard() {
        let model = PathLossModel(txPower: -60, exponent: 2)
        #expect(abs(TouchLevelRule.modelContact.threshold(for: model) - (model.contactRSSI + PathLossCalibration.touchGuard)) < 1e-9)
    }

    @Test func adoptingALevelStartsTheTouchEvidenceAgain() {
        var ranger = Ranger(calibration: Calibration(model: .default, touchRSSI: -40))
        for i in 0..<20 { _ = ranger.update(time: Double(i) / 10, rssi: -35) }
        #expect(ranger.touchDetector.isTouching)
        ranger.adoptTouchLevel(-30)
        #expect(!ranger.touchDetector.isTouching && ranger.touchDetector.threshold == -30)
        let after = (20..<40).map { ranger.update(time: Double($0) / 10, rssi: -35) }
        #expect(!after.contains { $0.touch }, "-35 dBm is below the new level")
        ranger.adoptTouchLevel(.nan)
        #expect(ranger.touchDetector.threshold == -30, "a non-finite level is ignored")
    }
}

/// Learning the pair's line while the passenger walks in.
@Suite struct ApproachLineTests {
    @Test func learnsThePairsLineFromTheWalkIn() throws {
        let truth = PathLossModel(txPower: -72, exponent: 1.8)
        var approach = ApproachLine()
        // 10 Hz, from 8 m to 30 cm at 0.5 m/s, with ±3 dB alternating fading (so even the
        // narrow near bins hold both signs).
        var d = 8.0, i = 0
        while d > 0.3 {
            approach.add(distance: d, rssi: truth.rssi(atDistance: d) + (i % 2 == 0 ? 3 : -3))
            d -= 0.05
            i += 1
        }
        let line = try #require(approach.line)
        #expect(abs(line.txPower - truth.txPower) < 1.0 && abs(line.exponent - truth.exponent) < 0.15)
        let calibration = try #require(approach.calibration())
        #expect(calibration.touchRSSI == TouchLevelRule.default.threshold(for: line))
    }

    @Test func noLineBeforeTheApproachSpansEnoughDistance() {
        var approach = ApproachLine()
        for k in 0..<50 { approach.add(distance: 2.0 + Double(k % 3) * 0.05, rssi: -70) }
        #expect(approach.line == nil, "a passenger standing at 2 m says nothing about the slope")
        approach.add(distance: .nan, rssi: -60)
        approach.add(distance: 0.02, rssi: -30)  // contact: not on the far-field line
        approach.add(distance: 3, rssi: .infinity)
        #expect(approach.line == nil)
    }
}
