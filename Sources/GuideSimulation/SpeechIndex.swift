import Foundation

/// Speech over traffic judged across bands, as the Speech Intelligibility Index does (ANSI
/// S3.5-1997, §4): each octave band's audibility is its speech-to-noise ratio plus 15 dB (the
/// speech peaks) over 30 dB, clipped to 0…1, weighted by how much of speech's information the
/// band carries. Simplified for a street: no spread of masking, no self-masking, no hearing
/// threshold (traffic masks far above it), no level distortion (docs/SIMULATOR.md).
public enum SpeechIndex {
    /// Band importance over `StreetSounds.bands` (125 Hz – 4 kHz): S3.5-1997 Table 3's
    /// average-speech importances of the one-third-octave bands summed per octave (as
    /// transcribed in Google's `speech_intelligibility_index` implementation). The 8 kHz
    /// octave's 0.0549 has no band here, so a perfectly heard call scores 0.945.
    public static let importance: [Double] = [0.0083, 0.0534, 0.1671, 0.2373, 0.2648, 0.2142]

    /// The index of speech at `levels` over noise at `noise` (per band, the same weighting).
    public static func index(_ levels: [Double], noise: [Double]) -> Double {
        zip(importance, zip(levels, noise)).reduce(0) { $0 + $1.0 * audibility($1.1.0 - $1.1.1) }
    }

    /// The index of speech `snr` dB above noise of its own spectrum (every band at `snr`).
    public static func index(snr: Double) -> Double { importance.reduce(0, +) * audibility(snr) }

    /// The speech-shaped-noise SNR giving `index` (within the range where it moves).
    public static func snr(forIndex index: Double) -> Double { 30 * index / importance.reduce(0, +) - 15 }

    static func audibility(_ snr: Double) -> Double { min(1, max(0, (snr + 15) / 30)) }

    /// How many dB the speech at `levels` could lose before its index over `noise` fell to
    /// `criterion` (negative: that far below it).
    public static func margin(_ levels: [Double], noise: [Double], criterion: Double) -> Double {
        func indexShifted(_ shift: Double) -> Double { index(levels.map { $0 + shift }, noise: noise) }
        var low = -80.0, high = 80.0
        guard indexShifted(high) >= criterion else { return -high }
        guard indexShifted(low) < criterion else { return -low }
        for _ in 0..<40 {
            let mid = (low + high) / 2
            if indexShifted(mid) >= criterion { high = mid } else { low = mid }
        }
        return -high
    }
}
