import Testing
@testable import GuideAudio

/// `renderUntilQuiet` ends at its limit even where the limit, in seconds, falls an ulp past
/// the last sample it can render (the bug that left `driver arrive` spinning as it stopped).
@Suite("Draining to a deadline")
struct DrainDeadlineTests {
    /// A rendered length whose one-second deadline rounds to a sample the timeline reaches
    /// while `renderedUpTo` stays below the deadline in floating point.
    static let awkwardStart: Int = {
        let rate = Double(AudioFormat.sampleRate)
        return (1...2_000_000).first { samples in
            let deadline = Double(samples) / rate + 1
            let reached = Int((deadline * rate).rounded())
            return Double(reached) / rate < deadline
        } ?? 0
    }()

    @Test(.timeLimit(.minutes(1)))
    func drainingStopsAtItsLimitWhenTheDeadlineFallsBetweenSamples() throws {
        try #require(Self.awkwardStart > 0, "no awkward start in the range searched")
        let scheduler = CueScheduler(speech: nil)
        let start = Double(Self.awkwardStart) / Double(AudioFormat.sampleRate)
        _ = scheduler.render(upTo: start)
        try #require(scheduler.renderedSamples == Self.awkwardStart)
        // A tick due after the limit: not quiet when the limit comes.
        scheduler.playLocatorTick(at: start + 5)
        try scheduler.renderUntilQuiet(limit: 1, into: NullSink())
        #expect(scheduler.renderedSamples - Self.awkwardStart <= AudioFormat.sampleRate + 1)
        #expect(!scheduler.isQuiet)
    }
}
