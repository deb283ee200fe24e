/// SplitMix64 (Steele, Lea and Flood 2014): the package's one small deterministic generator.
/// GuideAudio's locator tick draws its noise burst from it, so the tick is the same on every
/// machine; the simulator seeds its xoshiro256** from it; tests draw reproducible noise from it.
/// It lives here, in the package's pure core, so that code needing reproducible noise (and
/// BeaconCore's own tests) need not link the audio module for it.
///
/// The standard library's generators promise neither a sequence nor portability, so anything
/// that must replay from a seed uses this one:
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let noise = Double.random(in: -1...1, using: &random)   // the same on every run
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's whole state: the next output is a function of it alone.
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits of the next output.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
}
