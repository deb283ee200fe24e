import Foundation

/// Additive synthesis of short notes into a float buffer. Every note gets a raised-cosine
/// attack and release so no earcon starts, stops or joins with a click.
struct ToneBuilder {
    private(set) var buffer: [Float]
    static let rate = Double(AudioFormat.sampleRate)

    init(seconds: Double) {
        buffer = [Float](repeating: 0, count: Int((seconds * Self.rate).rounded()))
    }

    /// One note whose pitch glides from `startHz` to `endHz` (exponentially, as the ear hears
    /// pitch), with the given harmonic amplitudes (index 0 = fundamental).
    /// `decay` is the exponential decay rate per second (0 = flat sustain).
    mutating func note(
        at start: Double, seconds: Double, from startHz: Double, to endHz: Double? = nil,
        harmonics: [Double] = [1], amplitude: Double, attack: Double = 0.005, release: Double = 0.012,
        decay: Double = 0, tremoloHz: Double = 0
    ) {
        let first = Int((start * Self.rate).rounded())
        let count = Int((seconds * Self.rate).rounded())
        let glideRatio = (endHz ?? startHz) / startHz
        let norm = harmonics.reduce(0) { $0 + abs($1) }
        var phase = 0.0
        for i in 0..<count where first + i < buffer.count {
            let t = Double(i) / Self.rate
            let progress = Double(i) / Double(max(count - 1, 1))
            let frequency = startHz * pow(glideRatio, progress)
            phase += 2 * Double.pi * frequency / Self.rate
            var value = 0.0
            for (k, weight) in harmonics.enumerated() where weight != 0 {
                value += weight * sin(phase * Double(k + 1))
            }
            var gain = amplitude / norm * Self.envelope(t: t, length: seconds, attack: attack, release: release)
            if decay > 0 { gain *= exp(-decay * t) }
            if tremoloHz > 0 { gain *= 0.75 + 0.25 * cos(2 * Double.pi * tremoloHz * t) }
            buffer[first + i] += Float(value * gain)
        }
    }

    /// Raised-cosine fade in over `attack` and out over `release`; 1 in between.
    static func envelope(t: Double, length: Double, attack: Double, release: Double) -> Double {
        if t < attack { return 0.5 - 0.5 * cos(Double.pi * t / attack) }
        let remaining = length - t
        if remaining < release { return max(0, 0.5 - 0.5 * cos(Double.pi * remaining / release)) }
        return 1
    }

    /// Converts to 16-bit PCM, clamping rather than wrapping should notes sum above full scale.
    func pcm() -> [Int16] {
        buffer.map { Int16(max(-1, min(1, $0)) * Float(Int16.max)) }
    }
}
