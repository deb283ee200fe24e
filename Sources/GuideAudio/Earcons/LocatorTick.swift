import BeaconCore
import Foundation

/// The car's locator sound: what the driver's device plays, once a second, so a blind
/// passenger can walk to it. Not an earcon of the guide: it is meant to be heard outside,
/// from metres away, against traffic, and to be localised by ear.
///
/// Its shape follows what makes a sound heard in a street and easy to localise: a band of
/// noise from 1 to 4 kHz, where phone speakers are loud (below 1 kHz they give little; a
/// 15 mm driver's output falls about 12 dB per octave under its 700–900 Hz resonance) and
/// ears are most sensitive (the equal-loudness contours' dip, 2–4 kHz), and which carries the
/// level differences and pinna cues of localisation (issue 22, part 1; it was pink noise from
/// 250 Hz to 8 kHz, half its energy where the speaker cannot play it); a sharp onset (the
/// precedence effect locks on the first wavefront, before kerb and car reflections arrive),
/// short (30 ms, so reflections do not smear it), repeated once a second like the locator
/// tone of an accessible pedestrian signal, and as loud as the device allows.
///
/// | property | value |
/// | --- | --- |
/// | source | white noise, fixed seed, band-passed 1–4 kHz (two 2nd-order high-passes at 1 kHz, two low-passes at 4 kHz): every tick is identical |
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
    /// The band, Hz.
    public static let band: ClosedRange<Double> = 1_000...4_000

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
        // The filters ring in before the burst: run them over 20 ms of noise first.
        let lead = Int(0.020 * rate)
        var white = (0..<(lead + count)).map { _ in noise.nextWhite() }
        for filter in [Biquad.highPass(band.lowerBound, rate: rate), .highPass(band.lowerBound, rate: rate),
                       .lowPass(band.upperBound, rate: rate), .lowPass(band.upperBound, rate: rate)] {
            var state = filter
            white = white.map { state.process($0) }
        }
        var buffer = Array(white[lead...])
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
    private var random: SplitMix64
    private var b0 = 0.0, b1 = 0.0, b2 = 0.0

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func nextWhite() -> Double { white() }

    /// SplitMix64: good enough for a noise burst, and portable.
    private mutating func white() -> Double { random.unit() * 2 - 1 }

    mutating func next() -> Double {
        let w = white()
        b0 = 0.99765 * b0 + w * 0.0990460
        b1 = 0.96300 * b1 + w * 0.2965164
        b2 = 0.57000 * b2 + w * 1.0526913
        return b0 + b1 + b2 + w * 0.1848
    }
}

/// A second-order filter (RBJ audio-EQ cookbook, Q = 1/√2: Butterworth), direct form I.
struct Biquad {
    var b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0
        self.b1 = b1 / a0
        self.b2 = b2 / a0
        self.a1 = a1 / a0
        self.a2 = a2 / a0
    }

    static func lowPass(_ frequency: Double, rate: Double) -> Biquad {
        let w = 2 * Double.pi * frequency / rate, alpha = sin(w) / 2.0.squareRoot()
        return Biquad(b0: (1 - cos(w)) / 2, b1: 1 - cos(w), b2: (1 - cos(w)) / 2, a0: 1 + alpha, a1: -2 * cos(w), a2: 1 - alpha)
    }

    static func highPass(_ frequency: Double, rate: Double) -> Biquad {
        let w = 2 * Double.pi * frequency / rate, alpha = sin(w) / 2.0.squareRoot()
        return Biquad(b0: (1 + cos(w)) / 2, b1: -(1 + cos(w)), b2: (1 + cos(w)) / 2, a0: 1 + alpha, a1: -2 * cos(w), a2: 1 - alpha)
    }

    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        return y
    }
}
