import Testing
@testable import GuideAudio

@Suite struct EarconTests {
    /// Dominant pitch of the first and last 60 ms.
    func contour(_ earcon: Earcon) -> (start: Double, end: Double) {
        let samples = earcon.samples
        let window = min(samples.count, AudioFormat.sampleRate * 6 / 100)
        return (
            PCMAnalysis.dominantFrequency(samples[..<window]),
            PCMAnalysis.dominantFrequency(samples[(samples.count - window)...])
        )
    }

    @Test func closerRisesAndFartherFalls() {
        let closer = contour(.closer)
        let farther = contour(.farther)
        #expect(closer.end > closer.start * 1.3, "closer: \(closer)")
        #expect(farther.end < farther.start / 1.3, "farther: \(farther)")
        let lost = contour(.signalLost)
        #expect(lost.end < lost.start / 1.5, "signal lost glides down: \(lost)")
    }

    @Test func everyPairIsDistinctInPitchOrLength() {
        for (index, first) in Earcon.allCases.enumerated() {
            for second in Earcon.allCases.dropFirst(index + 1) {
                let a = contour(first), b = contour(second)
                func differs(_ x: Double, _ y: Double) -> Bool { max(x, y) / min(x, y) > 1.15 }
                let distinct = differs(a.start, b.start) || differs(a.end, b.end) || differs(first.duration, second.duration)
                #expect(distinct, "\(first) \(a) \(first.duration) s vs \(second) \(b) \(second.duration) s")
            }
        }
    }

    @Test func pulseIsTheShortestAndSignalLostTheLongest() {
        let durations = Earcon.allCases.map(\.duration)
        #expect(Earcon.pulse.duration == durations.min())
        #expect(Earcon.signalLost.duration == durations.max())
        #expect(Earcon.pulse.duration <= 0.05)
    }

    @Test(arguments: Earcon.allCases)
    func startsAndEndsWithoutAClick(_ earcon: Earcon) {
        let samples = earcon.samples
        let peak = PCMAnalysis.peak(samples)
        #expect(peak > 0.2 && peak < 0.6, "audible but below speech: \(peak)")
        // A click is a jump from silence: the first and last millisecond must be near silent.
        let edge = AudioFormat.sampleRate / 2000
        #expect(PCMAnalysis.peak(samples.prefix(edge)) < peak * 0.2)
        #expect(PCMAnalysis.peak(samples.suffix(edge)) < peak * 0.2)
        #expect(samples.first == 0 && samples.last.map { abs(Int($0)) < 200 } == true)
    }

    @Test func motifNotesJoinWithoutJumps() {
        // Between the notes of a motif the envelope closes; no sample-to-sample step may be
        // larger than the steepest slope of its highest partial at full level.
        for earcon in [Earcon.closer, .farther] {
            let samples = earcon.samples.map(Double.init)
            let largestStep = zip(samples, samples.dropFirst()).map { abs($1 - $0) }.max() ?? 0
            #expect(largestStep < Double(Int16.max) * Earcon.level * 0.9, "\(earcon): \(largestStep)")
        }
    }
}
