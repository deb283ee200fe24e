import Testing
@testable import GuideAudio

@Suite struct SchedulerScenarioTests {
    func scheduler(_ policy: CuePolicy = .standard) throws -> CueScheduler {
        CueScheduler(speech: try espeak(), policy: policy)
    }

    @Test func attentionTonePrecedesEveryPhraseInThePCM() throws {
        let cues = try scheduler()
        cues.setPulse(interval: 1.0, at: 0)
        cues.say("About ten meters.", at: 0.5)
        cues.say("About three meters.", at: 6)
        let pcm = cues.render(upTo: 12)
        let attention = Earcon.attention.samples
        #expect(cues.log.soundedPhrases.count == 2)
        for phrase in cues.log.soundedPhrases {
            let start = try #require(phrase.startSample)
            #expect(Array(pcm[start..<start + attention.count]) == attention, "\(phrase.kind)")
            let words = try #require(phrase.speechStart)
            #expect(words >= phrase.start! + Earcon.attention.duration + CuePolicy.standard.attentionGap - 1 / sampleRate)
            let spoken = Int(words * sampleRate)
            #expect(PCMAnalysis.rms(pcm[spoken..<spoken + 4410]) > 0.02, "speech follows the tone")
        }
    }

    @Test func pulseIsSilentDuringSpeechAndResumesAfter() throws {
        let cues = try scheduler()
        cues.setPulse(interval: 0.2, at: 0)
        cues.say("About six meters. Getting closer.", at: 1)
        let pcm = cues.render(upTo: 6)
        let phrase = try #require(cues.log.soundedPhrases.first)
        let ticks = cues.log.soundedTicks
        for tick in ticks {
            #expect(tick.end! <= phrase.start! || tick.start! >= phrase.end! + CuePolicy.standard.pulseResumeDelay - 1e-6)
        }
        let after = ticks.filter { $0.start! > phrase.end! }
        #expect(after.first.map { $0.start! - phrase.end! <= CuePolicy.standard.pulseResumeDelay + 0.001 } == true)
        #expect(after.count >= 5, "pulse resumed at its interval")
        // The PCM of the phrase is the phrase alone: no tick mixed in (ticks are 1.76 kHz).
        let span = phrase.startSample!..<Int(phrase.end! * sampleRate)
        let tone = PCMAnalysis.goertzelPower(pcm[span].suffix(2205), frequency: 1760)
        let tickPower = PCMAnalysis.goertzelPower(pcm[after[0].startSample!...].prefix(2205), frequency: 1760)
        #expect(tone < tickPower / 20)
    }

    @Test func pulseRateFollowsTheInterval() throws {
        for interval in [1.5, 0.75, 0.25] {
            let cues = try scheduler()
            cues.setPulse(interval: interval, at: 0)
            let pcm = cues.render(upTo: 15)
            let starts = cues.log.soundedTicks.map { $0.start! }
            #expect(starts.count == Int((15 / interval).rounded(.up)), "interval \(interval)")
            for (a, b) in zip(starts, starts.dropFirst()) { #expect(abs(b - a - interval) < 1e-4) }
            // Measured in the audio, not the log: one sounding span per tick.
            #expect(PCMAnalysis.soundingSpans(pcm, bridging: 0).count == starts.count)
        }
    }

    @Test func pulseBecomesContinuousAtTouchRangeAndStopsOnNil() throws {
        let cues = try scheduler()
        cues.setPulse(interval: 0, at: 0)
        cues.setPulse(interval: nil, at: 2)
        let pcm = cues.render(upTo: 4)
        let spans = PCMAnalysis.soundingSpans(pcm, threshold: 0.001, bridging: 0.01)
        #expect(spans.count == 1 && seconds(spans[0].count) > 1.9, "one continuous sound: \(spans)")
        #expect(PCMAnalysis.peak(pcm[Int(2.1 * sampleRate)...]) == 0, "silent once the pulse is off")
    }

    @Test func shorterIntervalTakesEffectFromTheLastTick() throws {
        let cues = try scheduler()
        cues.setPulse(interval: 1.5, at: 0)
        cues.setPulse(interval: 0.3, at: 0.5)
        _ = cues.render(upTo: 1)
        let starts = cues.log.soundedTicks.map { $0.start! }
        #expect(starts.count == 3 && abs(starts[1] - 0.5) < 1e-4 && abs(starts[2] - 0.8) < 1e-4, "\(starts)")
    }

    @Test func newerPhraseReplacesAWaitingOneAndStaleOnesAreDropped() throws {
        let cues = try scheduler()
        let long = cues.say("The driver is waiting at the corner, about twelve meters ahead of you.", at: 0)
        let replaced = cues.say("About ten meters.", at: 0.5)
        let newest = cues.say("About nine meters.", at: 0.8)
        _ = cues.render(upTo: 15)
        #expect(cues.log[long.id].fate == .sounded)
        #expect(cues.log[replaced.id].fate == .replaced)
        let firstEnd = cues.log[long.id].end!
        // The long phrase ends later than the newest one's 2 s staleness limit: dropped, not queued.
        #expect(firstEnd + CuePolicy.standard.phraseGap > 0.8 + CuePolicy.standard.staleAfter)
        #expect(cues.log[newest.id].fate == .droppedStale)
        #expect(cues.log.soundedPhrases.count == 1)
    }

    @Test func waitingPhraseSoundsWhenItIsStillFresh() throws {
        let cues = try scheduler()
        let first = cues.say("About ten meters.", at: 0)
        let second = cues.say("Getting closer.", at: 0.6)
        _ = cues.render(upTo: 6)
        let a = cues.log[first.id], b = cues.log[second.id]
        #expect(a.fate == .sounded && b.fate == .sounded)
        #expect(abs(b.start! - (a.end! + CuePolicy.standard.phraseGap)) < 1e-3, "starts right after the gap")
    }

    @Test func urgentPhraseIsNotReplacedByAnOrdinaryOne() throws {
        let cues = try scheduler()
        cues.say("About two meters, getting closer, keep going.", at: 0)
        let touch = cues.say("Touch detected. Press Enter to confirm your ride.", at: 0.3, urgent: true)
        let ordinary = cues.say("About one meter.", at: 0.5)
        _ = cues.render(upTo: 10)
        #expect(cues.log[touch.id].fate == .sounded)
        #expect(cues.log[ordinary.id].fate == .replaced)
    }

    @Test func rateLimitRefusesPhrasesBeyondTheBudget() throws {
        let cues = try scheduler(CuePolicy(maxPhrases: 2, ratePeriod: 10))
        var outcomes: [CueOutcome] = []
        for step in 0..<6 {
            let time = Double(step) * 3
            outcomes.append(cues.say("About \(10 - step) meters.", at: time))
            _ = cues.render(upTo: time + 3)
        }
        let kinds = outcomes.map { outcome -> String in
            if case .accepted = outcome { "ok" } else if case .rateLimited = outcome { "limited" } else { "other" }
        }
        #expect(kinds == ["ok", "ok", "limited", "limited", "ok", "ok"], "\(kinds)")
        #expect(cues.log.filter { $0.fate == .rateLimited }.count == 2)
        // Urgent phrases are exempt.
        let urgent = cues.say("Signal lost, keep still.", at: 18, urgent: true)
        #expect(urgent == .accepted(id: urgent.id))
    }

    @Test func earconsWaitBrieflyForSpeechOrAreDropped() throws {
        let cues = try scheduler()
        let phrase = cues.say("About six meters.", at: 0)
        let early = cues.play(.closer, at: 0.2)   // waits too long behind the phrase
        _ = cues.render(upTo: 0.5)
        let spokenEnd = cues.log[phrase.id].end!
        let late = cues.play(.closer, at: spokenEnd - 0.2)  // phrase ends within earconWait
        _ = cues.render(upTo: 5)
        #expect(cues.log[early.id].fate == .droppedBusy)
        #expect(cues.log[late.id].fate == .sounded)
        #expect(abs(cues.log[late.id].start! - spokenEnd) < 1e-3)
    }

    @Test func earconsDoNotOverlapEachOther() throws {
        let cues = try scheduler()
        let a = cues.play(.touch, at: 1)
        let b = cues.play(.closer, at: 1.1)
        _ = cues.render(upTo: 3)
        #expect(cues.log[a.id].fate == .sounded && cues.log[b.id].fate == .sounded)
        #expect(cues.log[b.id].start! >= cues.log[a.id].end!)
    }

    @Test func requestsOlderThanTheirLimitAreDroppedAtOnce() throws {
        let cues = try scheduler()
        _ = cues.render(upTo: 10)
        #expect(cues.say("About five meters.", at: 7) == .droppedStale(id: 0))
        #expect(cues.play(.closer, at: 9) == .droppedStale(id: 1))
        #expect(cues.play(.farther, at: 9.8) == .accepted(id: 2))
    }

    @Test func chunkedRenderingEqualsOneRender() throws {
        func script(_ cues: CueScheduler) {
            cues.setPulse(interval: 0.5, at: 0)
            cues.say("About ten meters.", at: 0.7)
            cues.play(.closer, at: 3.1)
            cues.setPulse(interval: 0.2, at: 4)
            cues.play(.touch, at: 5.5)
        }
        let whole = CueScheduler(speech: FixedSpeech())
        script(whole)
        let once = whole.render(upTo: 7)
        let chunked = CueScheduler(speech: FixedSpeech())
        script(chunked)
        var pieces: [Int16] = []
        var time = 0.0
        while time < 7 {
            time = min(7, time + 0.013)
            pieces += chunked.render(upTo: time)
        }
        #expect(once == pieces)
        #expect(whole.log == chunked.log)
    }

    @Test func withoutSpeechPhrasesFailButEarconsSound() {
        let cues = CueScheduler(speech: nil)
        #expect(cues.say("Hello", at: 0) == .failed(id: 0, "speech is off"))
        cues.play(.touch, at: 0)
        #expect(PCMAnalysis.peak(cues.render(upTo: 1)) > 0.2)
    }

    @Test func transcriptCountsCuesByKind() throws {
        let cues = try scheduler()
        cues.setPulse(interval: 1, at: 0)
        cues.play(.closer, at: 0.5)
        cues.say("About three meters.", at: 2)
        cues.setPulse(interval: nil, at: 5)
        let sink = MemorySink()
        try cues.render(upTo: 5, into: sink)
        try cues.renderUntilQuiet(into: sink)
        let counts = cues.log.soundedCounts
        #expect(counts["closer"] == 1 && counts["speech"] == 1 && (counts["pulse"] ?? 0) >= 2)
        #expect(counts["attention"] == nil, "the attention tone belongs to its phrase")
    }
}

/// Deterministic stand-in for espeak-ng where exact PCM equality is the point (espeak-ng's
/// output varies slightly from call to call).
struct FixedSpeech: SpeechEngine {
    func synthesize(_ text: String, voice: VoiceSettings) throws(SpeechError) -> SpokenPhrase {
        let samples = (0..<(text.count * 1000)).map { Int16(truncatingIfNeeded: ($0 * 37) % 8000 - 4000) }
        return SpokenPhrase(text: text, samples: samples, voice: voice.voice, fallback: nil, synthesisSeconds: 0)
    }
}
