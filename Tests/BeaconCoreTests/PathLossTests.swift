import Testing
import Foundation
@testable import BeaconCore

@Suite struct PathLossTests {
    @Test func distanceAndRSSIAreInverse() {
        let model = PathLossModel(txPower: -62, exponent: 2.3)
        for d in [0.02, 0.1, 0.5, 1, 3, 10, 80] {
            #expect(abs(model.distance(forRSSI: model.rssi(atDistance: d)) / d - 1) < 1e-9)
        }
        #expect(model.rssi(atDistance: 1) == -62)
        #expect(abs(model.rssi(atDistance: 10) - (-85)) < 1e-9)
    }

    @Test func contactLevelIsTheFiveCentimetreLevel() {
        let model = PathLossModel(txPower: -60, exponent: 2)
        #expect(abs(model.contactRSSI - (-60 + 10 * 2 * 1.30103)) < 1e-3)
    }

    @Test func distancesStayFiniteForAbsurdLevels() {
        let model = PathLossModel(txPower: -59, exponent: 1)
        #expect(model.distance(forRSSI: -400) == PathLossModel.distanceRange.upperBound)
        #expect(model.distance(forRSSI: 50) == PathLossModel.distanceRange.lowerBound)
        #expect(model.distance(forRSSI: -.infinity) == PathLossModel.distanceRange.upperBound)
    }

    /// Synthetic recordings: A = -62 dBm, n = 2.4, Gaussian shadowing σ = 3 dB.
    static func synthetic(distances: [Double], perDistance: Int = 200, seed: UInt64 = 7) -> [CalibrationSample] {
        var rng = SeededRandom(seed: seed)
        let truth = PathLossModel(txPower: -62, exponent: 2.4)
        return distances.flatMap { d in
            (0..<perDistance).map { _ in CalibrationSample(distance: d, rssi: truth.rssi(atDistance: d) + 3 * rng.gaussian()) }
        }
    }

    @Test func calibrationRecoversTxPowerAndExponent() throws {
        let fit = try PathLossCalibration.fit(Self.synthetic(distances: [0.25, 0.5, 1, 2, 4, 8]))
        #expect(abs(fit.model.txPower - (-62)) < 0.5)
        #expect(abs(fit.model.exponent - 2.4) < 0.1)
        #expect(abs(fit.residualRMS - 3) < 0.3)
        #expect(fit.sampleCount == 1200 && fit.distanceCount == 6)
        #expect(!fit.exponentClamped)
    }

    @Test func nearFieldSamplesDoNotBendTheFit() throws {
        var samples = Self.synthetic(distances: [0.5, 1, 2, 4])
        // Contact readings far above the far-field law must not drag n up.
        samples += (0..<300).map { _ in CalibrationSample(distance: 0.0, rssi: -20) }
        let fit = try PathLossCalibration.fit(samples)
        #expect(abs(fit.model.exponent - 2.4) < 0.15)
        #expect(fit.sampleCount == 800)
    }

    @Test func exponentIsClampedToTheSaneRange() throws {
        // Signal that barely falls with distance (a corridor): n would be 0.3.
        let samples = [1.0, 2, 4, 8].flatMap { d in
            (0..<10).map { _ in CalibrationSample(distance: d, rssi: -60 - 3 * log10(d)) }
        }
        let fit = try PathLossCalibration.fit(samples)
        #expect(fit.model.exponent == 1.0)
        #expect(fit.exponentClamped)
        // A is refitted for the clamped n: the model still passes through the data's centre.
        let meanResidual = samples.map { $0.rssi - fit.model.rssi(atDistance: $0.distance) }.reduce(0, +) / Double(samples.count)
        #expect(abs(meanResidual) < 1e-9)
    }

    @Test func needsTwoDistances() {
        #expect(throws: CalibrationFitError.tooFewDistances(found: 1)) {
            try PathLossCalibration.fit(Self.synthetic(distances: [1.0]))
        }
        #expect(throws: CalibrationFitError.tooFewDistances(found: 0)) {
            try PathLossCalibration.fit([CalibrationSample(distance: 0.01, rssi: -30)])
        }
    }

    @Test func touchThresholdComesFromContactSamplesWhenTheySeparate() throws {
        var samples = Self.synthetic(distances: [0.25, 0.5, 1, 2])
        samples += (0..<50).map { i in CalibrationSample(distance: 0, rssi: -20 - Double(i % 3)) }
        let fit = try PathLossCalibration.fit(samples)
        #expect(fit.touchMeasured)
        // Between the contact plateau (≈ -21) and the strongest readings at 25 cm (≈ -42).
        #expect(fit.touchRSSI < -22 && fit.touchRSSI > -40)
    }

    @Test func touchThresholdFallsBackToTheModel() throws {
        let fit = try PathLossCalibration.fit(Self.synthetic(distances: [0.5, 1, 2]))
        #expect(!fit.touchMeasured)
        #expect(abs(fit.touchRSSI - TouchLevelRule.default.threshold(for: fit.model)) < 1e-9)
    }

    @Test func fitsTheHeraldFixture() throws {
        let trace = try Fixtures.trace("herald-test10A-positions.csv")
        let samples = trace.samples.compactMap { s in s.trueDistance.map { CalibrationSample(distance: $0, rssi: s.rssi) } }
        let fit = try PathLossCalibration.fit(samples)
        #expect(PathLossModel.exponentRange.contains(fit.model.exponent))
        #expect(fit.distanceCount == 6)
        #expect(fit.touchMeasured)  // contact at -50 dBm, 10 cm at about -63 dBm
        #expect(fit.touchRSSI > -63 && fit.touchRSSI < -50)
    }
}
