import BeaconCore
import Foundation
import Guide
import GuideSimulation
import Phrasebook
import RideSession
import Testing

/// The simulator's satellite positions (issue 35): the error's size, its correlation in time
/// and between the two phones as the parameters say, and walks with positions whose far-field
/// claims are all true against the simulator's truth.
@Suite("Simulator: satellite positions")
struct SimulatedGNSSTests {
    /// Each phone's error east and north, m, once a second for `seconds`, both phones standing at
    /// the street's origin.
    static func errors(_ parameters: GNSSParameters, seed: UInt64, seconds: Int) -> [(her: (Double, Double), his: (Double, Double))] {
        var gnss = SimulatedGNSS(parameters: parameters, traffic: .right, carHeading: .pi, seed: seed)
        let origin = gnss.frame.origin
        var out: [(her: (Double, Double), his: (Double, Double))] = []
        for t in 0..<seconds {
            let fixes = gnss.fixes(at: Double(t), unixTime: Double(t), passenger: Point(x: 0, y: 0), driver: Point(x: 0, y: 0))
            guard let her = fixes.own, let his = fixes.driversOwn else { continue }
            let a = origin.offset(to: her), b = origin.offset(to: his)
            out.append(((a.east, a.north), (b.east, b.north)))
        }
        return out
    }

    @Test("the error's σ, correlation time and shared share are the parameters'")
    func errorStatistics() {
        var parameters = GNSSParameters()
        parameters.sigma = 8...8
        parameters.jumpRate = 0
        var squares = 0.0, lagged = 0.0, shared = 0.0, count = 0.0, lagCount = 0.0
        for seed in 1...60 {
            let series = Self.errors(parameters, seed: UInt64(seed), seconds: 600)
            for (i, pair) in series.enumerated() {
                squares += pair.her.0 * pair.her.0
                shared += pair.her.0 * pair.his.0
                count += 1
                if i >= 60 { lagged += pair.her.0 * series[i - 60].her.0; lagCount += 1 }
            }
        }
        let variance = squares / count
        // σ 8 m per axis; after one correlation time (60 s) e⁻¹ of it left; half of it shared.
        #expect(abs(variance.squareRoot() - 8) < 1.2, "σ \(variance.squareRoot())")
        #expect(abs(lagged / lagCount / variance - exp(-1)) < 0.12, "lag-60 s correlation \(lagged / lagCount / variance)")
        #expect(abs(shared / count / variance - 0.5) < 0.12, "shared share \(shared / count / variance)")
    }

    @Test("walks with positions: the far field speaks, and every distance it claims is true against the truth")
    func walksWithPositions() async {
        var far = 0
        for seed in UInt64(1)...12 {
            var configuration = GuidedWalk.Configuration(seed: seed)
            configuration.street = StreetParameters()
            configuration.positions = GNSSParameters()
            configuration.driver = .silent
            configuration.walker.firstDirection = .coinToss
            var walk = GuidedWalk(ride: SimulatedRide.ride, configuration: configuration)
            let policy = MutualProofPolicy()
            var falseClaims: [String] = []
            _ = await walk.run(unixTime: { SimulatedRide.base + $0 }, onCue: { cue, moment in
                guard case .speech(let utterance) = cue.sound, utterance.keys.contains(where: \.isFarDirection) else { return }
                far += 1
                // The far field's distance, read back from the sentence: "About N" or "More than N".
                for (key, prefix) in [(PhraseID.guideFarAboutMeters, "About "), (.guideFarMoreThanMeters, "More than ")] where utterance.keys.contains(key) {
                    guard let range = utterance.text.range(of: prefix),
                          let n = Int(utterance.text[range.upperBound...].prefix { $0.isNumber }) else { continue }
                    let band: DistanceBands.Band = key == .guideFarAboutMeters ? .about(n) : .moreThan(n)
                    if !band.isTrue(atDistance: moment.trueDistance) { falseClaims.append("\(utterance.text) at \(moment.trueDistance) m") }
                }
            }, prove: { side, observation in policy.prove(side, observation) })
            #expect(falseClaims.isEmpty, "seed \(seed): \(falseClaims)")
        }
        #expect(far > 12, "the far field spoke \(far) times in 12 walks")
    }
}
