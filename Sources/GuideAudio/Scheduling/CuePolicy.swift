/// The timing rules of `CueScheduler`, in seconds.
public struct CuePolicy: Equatable, Sendable {
    /// Silence between the attention tone and the phrase it announces.
    public var attentionGap: Double
    /// Least silence between the end of one phrase and the attention tone of the next.
    public var phraseGap: Double
    /// A phrase that cannot start within this long of its request is dropped: by then the
    /// distance it describes is out of date.
    public var staleAfter: Double
    /// At most `maxPhrases` non-urgent phrases may start within any `ratePeriod`; more are refused.
    public var maxPhrases: Int
    public var ratePeriod: Double
    /// An earcon that cannot start within this long (speech or another earcon is sounding)
    /// is dropped: a late "closer" misleads more than a missing one.
    public var earconWait: Double
    /// Silence after speech or an earcon before the proximity pulse resumes, so the pulse
    /// never runs into the end of a word.
    public var pulseResumeDelay: Double

    public init(
        attentionGap: Double = 0.06, phraseGap: Double = 0.3, staleAfter: Double = 2.0,
        maxPhrases: Int = 4, ratePeriod: Double = 10, earconWait: Double = 0.5, pulseResumeDelay: Double = 0.3
    ) {
        self.attentionGap = attentionGap
        self.phraseGap = phraseGap
        self.staleAfter = staleAfter
        self.maxPhrases = maxPhrases
        self.ratePeriod = ratePeriod
        self.earconWait = earconWait
        self.pulseResumeDelay = pulseResumeDelay
    }

    public static let standard = CuePolicy()
}
