import Foundation

/// Measurements of rendered PCM, so tests (here and in the guide) can check what a listener
/// would hear from a WAV instead of trusting the scheduler's own log.
public enum PCMAnalysis {
    /// Root mean square as a fraction of full scale.
    public static func rms<C: Collection>(_ samples: C) -> Double where C.Element == Int16 {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot() / Double(Int16.max)
    }

    /// Peak absolute value as a fraction of full scale.
    public static func peak<C: Collection>(_ samples: C) -> Double where C.Element == Int16 {
        Double(samples.map { $0.magnitude }.max() ?? 0) / Double(Int16.max)
    }

    /// The frequency (Hz) with the most energy between `lowest` and `highest`, scanned in steps
    /// of 1 % with the Goertzel algorithm.
    public static func dominantFrequency(
        _ samples: ArraySlice<Int16>, lowest: Double = 80, highest: Double = 5000
    ) -> Double {
        var best = (frequency: lowest, power: -1.0)
        var frequency = lowest
        while frequency <= highest {
            let power = goertzelPower(samples, frequency: frequency)
            if power > best.power { best = (frequency, power) }
            frequency *= 1.01
        }
        return best.frequency
    }

    /// Energy of `samples` at one frequency.
    public static func goertzelPower(_ samples: ArraySlice<Int16>, frequency: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(AudioFormat.sampleRate))
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    }

    /// Sample ranges where the signal sounds: 5 ms windows whose RMS exceeds `threshold`, with
    /// gaps shorter than `bridging` seconds joined (pauses between words are not silence).
    public static func soundingSpans(_ samples: [Int16], threshold: Double = 0.01, bridging: Double = 0.05) -> [Range<Int>] {
        let window = AudioFormat.sampleRate / 200
        let bridge = Int(bridging * Double(AudioFormat.sampleRate))
        var spans: [Range<Int>] = []
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + window)
            if rms(samples[start..<end]) > threshold {
                if let last = spans.last, start - last.upperBound <= bridge {
                    spans[spans.count - 1] = last.lowerBound..<end
                } else {
                    spans.append(start..<end)
                }
            }
            start = end
        }
        return spans
    }
}
