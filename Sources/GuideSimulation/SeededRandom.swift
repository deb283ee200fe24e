import BeaconCore
import Guide
import GuideAudio
import Foundation

/// xoshiro256** seeded through SplitMix64: our own generator, so `--seed N` gives the same walk
/// on every platform and Swift version (the standard library's generators promise neither).
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0, s1, s2, s3: UInt64
    private var spareGaussian: Double?

    public init(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        s0 = mixer.next(); s1 = mixer.next(); s2 = mixer.next(); s3 = mixer.next()
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1), 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit()
    }

    /// Standard normal (Box–Muller; the second value is kept for the next call).
    public mutating func gaussian() -> Double {
        if let spare = spareGaussian {
            spareGaussian = nil
            return spare
        }
        let u1 = max(unit(), 0x1.0p-60)
        let u2 = unit()
        let radius = (-2 * log(u1)).squareRoot()
        spareGaussian = radius * sin(2 * .pi * u2)
        return radius * cos(2 * .pi * u2)
    }

    public mutating func chance(_ probability: Double) -> Bool { unit() < probability }

    /// An independent generator for one part of the simulation, so adding draws in one part
    /// does not change what another part sees for the same seed.
    public mutating func fork() -> SeededRandom { SeededRandom(seed: next()) }
}
