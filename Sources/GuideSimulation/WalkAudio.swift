import Guide
import GuideAudio

/// The guide's cues on the audio scheduler's timeline (walk seconds), rendered into the sink
/// up to each cue's time before it is requested, so rate limits and staleness see the same
/// timeline a live passenger would hear.
public final class WalkAudio {
    private let scheduler: CueScheduler
    private let sink: any AudioSink
    public private(set) var lastTime = 0.0
    /// The first sink failure, if any (rendering stops there; the walk goes on).
    public private(set) var failure: String?

    public init(speech: (any SpeechEngine)?, sink: any AudioSink, voice: VoiceSettings = .standard) {
        self.sink = sink
        scheduler = CueScheduler(speech: speech, voice: voice)
    }

    /// What sounded and when, on the walk's timeline.
    public var log: [CueRecord] { scheduler.log }

    public func cue(_ cue: GuideCue) {
        advance(to: cue.time)
        switch cue.sound {
        case .earcon(let earcon): scheduler.play(earcon, at: cue.time)
        case .speech(let utterance):
            scheduler.say(utterance.text, at: cue.time, urgent: utterance.isUrgent)
        }
    }

    public func pulse(_ interval: Double?, at time: Double) {
        advance(to: time)
        scheduler.setPulse(interval: interval, at: time)
    }

    public func finish() {
        scheduler.setPulse(interval: nil, at: lastTime)
        do {
            try scheduler.renderUntilQuiet(limit: 30, into: sink)
            try sink.close()
        } catch {
            failure = "\(sink.name): \(error)"
        }
    }

    private func advance(to time: Double) {
        lastTime = max(lastTime, time)
        guard failure == nil else { return }
        do { try scheduler.render(upTo: time, into: sink) } catch { failure = "\(sink.name): \(error)" }
    }
}
