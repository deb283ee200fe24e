import Foundation
@testable import BeaconCore

/// SplitMix64 with a normal deviate, so noisy test signals are the same on every run.
struct SeededRandom: RandomNumberGenerator {
    var mixer: SplitMix64

    init(seed: UInt64) { mixer = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { mixer.next() }

    /// Standard normal deviate (Box–Muller).
    mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// The repository's fixtures, found relative to this source file.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/traces")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent(name)))
    }

    static func trace(_ name: String) throws -> Trace {
        try TraceParser.parse(bytes: bytes(name))
    }

    static func calibration(_ name: String) throws -> Calibration {
        try Calibration.parse(json: bytes(name))
    }
}

/// Runs a ranger over (time, rssi) pairs.
func range(_ samples: [(Double, Double)], calibration: Calibration = Calibration(model: .default)) -> [RangeEstimate] {
    var ranger = Ranger(calibration: calibration)
    return samples.map { ranger.update(time: $0.0, rssi: $0.1) }
}

/// The widely copied 1-D Kalman preset (process 0.01, measurement 3), the jitter reference.
func kalmanJS(_ values: [Double]) -> [Double] {
    var x = Double.nan, p = 0.0
    return values.map { z in
        if x.isNaN {
            x = z
            p = 3
        } else {
            let prior = p + 0.01
            let k = prior / (prior + 3)
            x += k * (z - x)
            p = (1 - k) * prior
        }
        return x
    }
}

func standardDeviation(_ values: some Collection<Double>) -> Double {
    let mean = values.reduce(0, +) / Double(values.count)
    return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
}
