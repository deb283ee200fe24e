import Foundation

/// The car's locator sound: what the driver's device plays, once a second, so a blind
/// passenger can walk to it. Not an earcon of the guide: it is meant to be heard outside,
/// from metres away, against traffic, and to be localised by ear.
///
/// Its shape follows what makes a sound easy to localise and to hear in noise: broadband
/// (interaural time and level differences and the pinna's spectral cues together need energy
/// from below 1 kHz to above 4 kHz; a pure tone is localised worst), a sharp onset (the
/// precedence effect locks on the first wavefront, before kerb and car reflections arrive),
/// short (30 ms, so reflections do not smear it), repeated once a second like the locator
/// tone of an accessible pedestrian signal, and as loud as the device allows.
///
/// | property | value |
/// | --- | --- |
/// | source | pink noise (equal energy per octave), fixed seed: every tick is identical |
/// | length | 30 ms: 1 ms raised-cosine attack, exponential decay, 3 ms release |
/// | peak | 0.9 of full scale |
/// | period | 1 s (`LocatorTick.period`) |
public enum LocatorTick {
    public static let duration = 0.030
    public static let period = 1.0
    public static let peakLevel = 0.9
    static let attack = 0.001
    static let release = 0.003
    /// Decay per second: the level halves about every 14 ms, so the tail is quiet long
    /// before the burst ends and the release has nothing to cut.
    static let decay = 50.0

    /// The tick's PCM (`AudioFormat`), synthesised once.
    public static let samples: [Int16] = synthesize()

    /// Tick start times, s after `start`, for a locator request sounding `seconds`.
    public static func times(from start: Double, seconds: Double) -> [Double] {
        guard seconds > 0 else { return [] }
        return (0..<Int((seconds / period).rounded(.up))).map { start + Double($0) * period }
    }

    static func synthesize() -> [Int16] {
        let rate = Double(AudioFormat.sampleRate)
        let count = Int((duration * rate).rounded())
        var noise = PinkNoise(seed: 0x5EED_71C4)
        var buffer = (0..<count).map { _ in noise.next() }
        for i in 0..<count {
            let t = Double(i) / rate
            buffer[i] *= ToneBuilder.envelope(t: t, length: duration, attack: attack, release: release) * exp(-decay * t)
        }
        let peak = buffer.map { abs($0) }.max() ?? 1
        return buffer.map { Int16(max(-1, min(1, $0 / peak * peakLevel)) * Double(Int16.max)) }
    }
}

/// Paul Kellet's economical pink filter over a small deterministic white-noise generator, so
/// the tick is the same on every machine.
struct PinkNoise {
    private var state: UInt64
    private var b0 = 0.0, b1 = 0.0, b2 = 0.0

    init(seed: UInt64) { state = seed }

    private mutating func white() -> Double {
        // SplitMix64: good enough for a noise burst, and portable.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) * 0x1.0p-53 * 2 - 1
    }

    mutating func next() -> Double {
        let w = white()
        b0 = 0.99765 * b0 + w * 0.0990460
        b1 = 0.96300 * b1 + w * 0.2965164
        b2 = 0.57000 * b2 + w * 1.0526913
        return b0 + b1 + b2 + w * 0.1848
    }
}
