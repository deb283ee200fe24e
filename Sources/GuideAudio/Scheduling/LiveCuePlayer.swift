import Foundation
import Synchronization

/// Real-time driver of a `CueScheduler`: the timeline is seconds since `start()` on a monotonic
/// clock, rendered into the sink in small chunks a little ahead of the clock (so a loaded
/// machine does not starve the player). A cue request renders at once, so its first sample
/// reaches the sink without waiting for the next chunk.
///
/// Thread-safe: every call takes one lock (a `Mutex`) around the scheduler and the sink; speech
/// is synthesised before the lock is taken, so the render thread never waits on espeak-ng.
public final class LiveCuePlayer: Sendable {
    /// Seconds of audio written ahead of the clock. A cue requested now starts at most this
    /// late in what the listener hears.
    public let lookahead: Double
    /// Period of the background rendering.
    public let chunk: Double

    /// What the lock guards: the scheduler, the sink it renders into, the thread's flags.
    private struct State {
        let scheduler: CueScheduler
        var sink: any AudioSink
        var running = false
        var stopped = false
    }

    private let state: Mutex<State>
    private let speech: (any SpeechEngine)?
    private let report: @Sendable (String) -> Void
    private let epoch = ContinuousClock.now

    public init(
        speech: (any SpeechEngine)?, voice: VoiceSettings = .standard, policy: CuePolicy = .standard,
        sink: sending any AudioSink, lookahead: Double = 0.05, chunk: Double = 0.02,
        log: @escaping @Sendable (String) -> Void
    ) {
        state = Mutex(State(scheduler: CueScheduler(speech: speech, voice: voice, policy: policy, origin: 0), sink: sink))
        self.speech = speech
        self.lookahead = lookahead
        self.chunk = chunk
        report = log
    }

    /// Seconds since the player was created: the timeline of `log`.
    public var now: Double { (ContinuousClock.now - epoch).inSeconds }

    /// Starts the background rendering thread.
    public func start() {
        let starting = state.withLock { state in
            guard !state.running, !state.stopped else { return false }
            state.running = true
            return true
        }
        guard starting else { return }
        let thread = Thread { [self] in
            while true {
                let keepGoing = state.withLock { state in
                    if state.running { renderAhead(&state) }
                    return state.running
                }
                guard keepGoing else { break }
                Thread.sleep(forTimeInterval: chunk)
            }
        }
        thread.name = "ridebeacon.audio"
        thread.start()
    }

    public func setPulse(interval: Double?) {
        withScheduler { $0.setPulse(interval: interval, at: now) }
    }

    @discardableResult
    public func play(_ earcon: Earcon) -> CueOutcome {
        withScheduler { $0.play(earcon, at: now) }
    }

    @discardableResult
    public func playLocatorTick() -> CueOutcome {
        withScheduler { $0.playLocatorTick(at: now) }
    }

    /// Synthesises `text` outside the lock, then hands it to the scheduler as asked for at the
    /// moment of this call (so a slow synthesis can make a phrase stale, never late).
    @discardableResult
    public func say(_ text: String, urgent: Bool = false) -> CueOutcome {
        let asked = now
        let voice = state.withLock { $0.scheduler.voice }
        let phrase = speech.map { speech in Result { () throws(SpeechError) in try speech.synthesize(text, voice: voice) } }
        return withScheduler { $0.say(text, at: asked, urgent: urgent, synthesized: phrase) }
    }

    public var voice: VoiceSettings {
        get { state.withLock { $0.scheduler.voice } }
        set { state.withLock { $0.scheduler.voice = newValue } }
    }

    /// What sounded and when (timeline = `now`).
    public var log: [CueRecord] { state.withLock { $0.scheduler.log } }

    /// Stops the clock-driven rendering, lets accepted cues finish (at most `drain` seconds of
    /// audio, rendered at once: the player plays out what it was given) and closes the sink.
    /// Nothing waits for the rendering thread (a caller on a cooperative thread must not block):
    /// it renders only under the lock and only while `running`, so once this has cleared
    /// `running` under the lock the thread never touches the sink again, and it ends at its next
    /// check.
    public func stop(drain: Double = 10) throws {
        try state.withLock { state in
            state.running = false
            state.stopped = true
            state.scheduler.setPulse(interval: nil, at: state.scheduler.renderedUpTo)
            try? state.scheduler.renderUntilQuiet(limit: drain, into: state.sink)
            try state.sink.close()
        }
    }

    private func withScheduler<T: Sendable>(_ body: (CueScheduler) -> T) -> T {
        state.withLock { state in
            let result = body(state.scheduler)
            // At least 5 ms past what is already written: a cue that must first fade out a pulse
            // tick (3 ms) still gets its first sample out in this call. Capped, so a burst of
            // requests cannot run far ahead of the clock.
            if state.running {
                let clock = now
                renderAhead(&state, upTo: max(clock + lookahead, min(state.scheduler.renderedUpTo + 0.005, clock + 2 * lookahead)))
            }
            return result
        }
    }

    /// Renders into the sink up to `target` (the clock plus the lookahead by default); called
    /// with the lock held.
    private func renderAhead(_ state: inout State, upTo target: Double? = nil) {
        do {
            try state.scheduler.render(upTo: target ?? now + lookahead, into: state.sink)
        } catch {
            report("audio: \(state.sink.name) failed (\(error)); audio is off")
            state.sink = NullSink()
        }
    }
}
