import BeaconCore
import Foundation
import Guide
import GuideSimulation
import Testing

/// The simulator's channel as fitted to real traces (fixtures/channel-fit.json).
@Suite struct CalibratedChannelTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/channel-fit.json")

    @Test func theSimulatorReadsTheCommittedFit() throws {
        let file = try String(contentsOf: Self.fixture, encoding: .utf8)
        #expect(file.trimmingCharacters(in: .whitespacesAndNewlines)
                == ChannelFit.committedJSON.trimmingCharacters(in: .whitespacesAndNewlines),
                "ChannelFit.committedJSON must be a verbatim copy of fixtures/channel-fit.json")
        let fit = try ChannelFit.decode(Data(file.utf8))
        #expect(fit == ChannelFit.committed)
    }

    @Test func drawsStayInsideTheFittedRanges() {
        let fit = ChannelFit.committed
        var rng = SeededRandom(seed: 1)
        for _ in 0..<200 {
            let p = ChannelModel.Parameters.calibrated(&rng)
            #expect((fit.pathLoss.exponentMin...fit.pathLoss.exponentMax).contains(p.exponent))
            #expect((fit.bodyLossDb.min...fit.bodyLossDb.max).contains(p.bodyLoss))
            #expect(p.bodyLoss >= 10, "published body loss at 2.4 GHz is 10 dB and more behind the body")
            #expect(p.shadowingSigma == fit.shadowing.sigmaDb && p.baseLoss == fit.advertLoss)
        }
    }

    /// A walk through the calibrated channel spreads around its path-loss line as the real walks
    /// do (the fit's walking σ, ≈5 dB): not kinder than reality.
    @Test func aWalkSpreadsAroundItsLineAsTheRealWalksDo() throws {
        func spread() -> Double {
            var rng = SeededRandom(seed: 8)
            var parameters = ChannelModel.Parameters.calibrated(&rng)
            parameters.bodyLoss = 0
            var channel = ChannelModel(parameters: parameters, rng: rng.fork())
            var residuals: [Double] = []
            for step in 0..<4000 {
                let time = Double(step) * 0.45
                let distance = 2 + 14 * (0.5 + 0.5 * sin(time / 20))
                if let rssi = channel.receive(at: time, receiver: Point(x: distance, y: 0), facing: .pi) {
                    residuals.append(Double(rssi) - channel.meanRSSI(atDistance: distance))
                }
            }
            let mean = residuals.reduce(0, +) / Double(residuals.count)
            return (residuals.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(residuals.count)).squareRoot()
        }
        let real = 4.989  // fixtures/channel-fit.json, walking_residual.sigma_db
        let calibrated = spread()
        #expect(abs(calibrated - real) < 0.2 * real, "calibrated spread \(calibrated) dB vs real \(real) dB")
    }

    @Test func spokenDistancesAreJudgedWithin2x() {
        #expect(SpokenDistance.isWithin2x(.about(20), 10) && !SpokenDistance.isWithin2x(.about(20), 6))
        #expect(SpokenDistance.isWithin2x(.moreThan(20), 12) && !SpokenDistance.isWithin2x(.moreThan(20), 9))
        #expect(SpokenDistance.isWithin2x(.veryClose, 2) && !SpokenDistance.isWithin2x(.veryClose, 3))
    }
}
