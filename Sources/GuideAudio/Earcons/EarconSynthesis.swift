import Foundation

/// How each earcon sounds. They differ in contour (rising, falling, flat, gliding), timbre
/// (pure, hollow odd harmonics, bell partials) and length, so none can be mistaken for another
/// even on a small speaker:
///
/// | earcon | contour | timbre | length |
/// | --- | --- | --- | --- |
/// | attention | two-note up-chime (E6 → A6), a fourth | bell | 0.22 s |
/// | closer | three steps up (C5 E5 G5) | bright, all harmonics | 0.30 s |
/// | farther | three steps down (G4 E4 C4) | hollow, odd harmonics | 0.30 s |
/// | pulse | one tick at 1.76 kHz | pure, fast decay | 0.04 s |
/// | touch | C-major chord swelling then ringing | bell | 0.60 s |
/// | signal lost | slow glide down an octave (440 → 220 Hz) with tremolo | hollow | 0.70 s |
/// | track 1–5 | one soft note, 330 → 659 Hz in minor thirds (louder signal, higher) | pure | 0.12 s |
extension Earcon {
    /// The earcon's PCM (`AudioFormat`), synthesised once and cached.
    public var samples: [Int16] { EarconCache.samples[self] ?? [] }

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(AudioFormat.sampleRate) }

    /// Peak level as a fraction of full scale; speech from espeak-ng peaks near 0.5–0.7,
    /// so earcons sit a little below it and never mask it.
    static let level = 0.45

    fileprivate func synthesize() -> [Int16] {
        let bell: [Double] = [1, 0.35, 0.18, 0.08]
        let bright: [Double] = [1, 0.5, 0.33, 0.25]
        let hollow: [Double] = [1, 0, 0.33, 0, 0.2]
        switch self {
        case .attention:
            var tone = ToneBuilder(seconds: 0.22)
            tone.note(at: 0, seconds: 0.10, from: 1318.5, harmonics: bell, amplitude: Self.level, decay: 8)
            tone.note(at: 0.09, seconds: 0.13, from: 1760, harmonics: bell, amplitude: Self.level, decay: 10)
            return tone.pcm()
        case .closer:
            var tone = ToneBuilder(seconds: 0.30)
            for (index, hz) in [523.25, 659.25, 783.99].enumerated() {
                tone.note(at: Double(index) * 0.1, seconds: 0.1, from: hz, harmonics: bright, amplitude: Self.level)
            }
            return tone.pcm()
        case .farther:
            var tone = ToneBuilder(seconds: 0.30)
            for (index, hz) in [392.0, 329.63, 261.63].enumerated() {
                tone.note(at: Double(index) * 0.1, seconds: 0.1, from: hz, harmonics: hollow, amplitude: Self.level)
            }
            return tone.pcm()
        case .pulse:
            var tone = ToneBuilder(seconds: 0.04)
            tone.note(at: 0, seconds: 0.04, from: 1760, amplitude: Self.level * 0.8, attack: 0.003, release: 0.01, decay: 40)
            return tone.pcm()
        case .touch:
            var tone = ToneBuilder(seconds: 0.60)
            for hz in [1046.5, 1318.5, 1568.0] {
                tone.note(at: 0, seconds: 0.60, from: hz, harmonics: bell, amplitude: Self.level / 2.2, attack: 0.02, release: 0.05, decay: 4)
            }
            return tone.pcm()
        case .signalLost:
            var tone = ToneBuilder(seconds: 0.70)
            tone.note(at: 0, seconds: 0.70, from: 440, to: 220, harmonics: hollow, amplitude: Self.level, attack: 0.02, release: 0.08, tremoloHz: 6)
            return tone.pcm()
        case .track1, .track2, .track3, .track4, .track5:
            // Minor thirds (×1.19) apart: each step is heard as a step, and none is another earcon.
            let step = Double(Earcon.trackingTones.firstIndex(of: self) ?? 0)
            var tone = ToneBuilder(seconds: 0.12)
            tone.note(at: 0, seconds: 0.12, from: 329.63 * pow(2, step * 3 / 12), amplitude: Self.level * 0.8, attack: 0.01, release: 0.03)
            return tone.pcm()
        }
    }
}

private enum EarconCache {
    /// Built on first use (a few ms for all six) and immutable afterwards.
    static let samples: [Earcon: [Int16]] = Dictionary(uniqueKeysWithValues: Earcon.allCases.map { ($0, $0.synthesize()) })
}
