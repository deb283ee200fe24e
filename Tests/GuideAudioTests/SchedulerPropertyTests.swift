import BeaconCore
import Foundation
import Synchronization
import Testing
@testable import GuideAudio

/// Real espeak-ng phrases, synthesised once per text so hundreds of random requests stay fast.
final class RecordedSpeech: SpeechEngine, Sendable {
    private let phrases = Mutex<[String: SpokenPhrase]>([:])
    func synthesize(_ text: String, voice: VoiceSettings) throws(SpeechError) -> SpokenPhrase {
        if let phrase = phrases.withLock({ $0[text] }) { return phrase }
        let phrase = try EspeakSpeech.shared().synthesize(text, voice: voice)
        phrases.withLock { $0[text] = phrase }
        return phrase
    }
    static let shared = RecordedSpeech()
}

@Suite struct SchedulerPropertyTests {
    static let texts = [
        "About ten meters.", "About three meters.", "Very close, reach out.", "Getting closer.",
        "Getting farther. Turn around.", "Your driver has arrived.",
    ]

    /// A random walk of requests (pulse changes, earcons, ordinary and urgent phrases) at
    /// random times, rendered in random chunks; returns the scheduler and everything it rendered.
    func randomSession(seed: UInt64, policy: CuePolicy) throws -> (CueScheduler, [Int16]) {
        var random = SplitMix64(seed: seed)
        let cues = CueScheduler(speech: RecordedSpeech.shared, policy: policy)
        var pcm: [Int16] = []
        var time = 0.0
        for _ in 0..<40 {
            time += Double.random(in: 0...1.2, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0...1: cues.setPulse(interval: [nil, 0, 0.3, 0.8, 1.5].randomElement(using: &random)!, at: time)
            case 2...4: cues.play(Earcon.allCases.randomElement(using: &random)!, at: time)
            case 5...8: cues.say(Self.texts.randomElement(using: &random)!, at: time)
            default: cues.say(Self.texts.randomElement(using: &random)!, at: time, urgent: true)
            }
            if Bool.random(using: &random) { pcm += cues.render(upTo: time + Double.random(in: 0...0.5, using: &random)) }
        }
        cues.setPulse(interval: nil, at: max(time, cues.renderedUpTo))
        pcm += cues.render(upTo: max(time, cues.renderedUpTo))
        let sink = MemorySink()
        try cues.renderUntilQuiet(limit: 120, into: sink)
        pcm += sink.samples
        return (cues, pcm)
    }

    @Test(arguments: 1...30 as ClosedRange<UInt64>)
    func invariantsHoldForRandomSessions(seed: UInt64) throws {
        let policy = CuePolicy(maxPhrases: 3, ratePeriod: 8)
        let (cues, pcm) = try randomSession(seed: seed, policy: policy)
        let log = cues.log
        let tolerance = 1.5 / sampleRate

        #expect(!log.contains { $0.fate == .pending }, "every cue reached a fate")

        let foreground = log.sounded.filter { !$0.isPulse }.sorted { $0.start! < $1.start! }
        for (a, b) in zip(foreground, foreground.dropFirst()) {
            #expect(b.start! >= a.end! - tolerance, "seed \(seed): \(a.kind) overlaps \(b.kind)")
        }
        let phrases = foreground.filter(\.isPhrase)
        for (a, b) in zip(phrases, phrases.dropFirst()) {
            #expect(b.start! - a.end! >= policy.phraseGap - tolerance, "seed \(seed): phrases too close")
        }
        for tick in log.soundedTicks {
            #expect(!foreground.contains { $0.start! < tick.end! - tolerance && tick.start! < $0.end! - tolerance },
                    "seed \(seed): pulse at \(tick.start!) under a cue")
        }

        let attention = Earcon.attention.samples
        for phrase in phrases {
            let start = phrase.startSample!
            #expect(Array(pcm[start..<start + attention.count]) == attention, "seed \(seed): attention first")
            if !phrase.urgent { #expect(phrase.start! - phrase.requestedAt <= policy.staleAfter + tolerance) }
            if !phrase.urgent {
                let recent = phrases.filter { $0.start! > phrase.start! - policy.ratePeriod && $0.start! < phrase.start! }
                #expect(recent.count < policy.maxPhrases, "seed \(seed): rate limit")
            }
        }
        for earcon in foreground where !earcon.isPhrase {
            #expect(earcon.start! - earcon.requestedAt <= policy.earconWait + tolerance)
        }
        for replaced in log where replaced.fate == .replaced {
            let newer = log.contains { $0.id > replaced.id && $0.isPhrase && $0.requestedAt >= replaced.requestedAt }
            let urgentAhead = !replaced.urgent && log.contains { $0.isPhrase && $0.urgent && $0.requestedAt <= replaced.requestedAt }
            #expect(newer || urgentAhead, "seed \(seed): replaced only by a newer phrase or a waiting urgent one")
        }

        // The log tells the truth about the audio: outside the sounded intervals there is silence.
        var covered = [Bool](repeating: false, count: pcm.count)
        for record in log.sounded {
            let start = record.startSample!
            let end = min(pcm.count, Int((record.end! * sampleRate).rounded()))
            if start < end { for index in start..<end { covered[index] = true } }
        }
        let stray = pcm.indices.first { !covered[$0] && pcm[$0] != 0 }
        #expect(stray == nil, "seed \(seed): sound at sample \(stray ?? -1) that no cue accounts for")
    }
}
