import Foundation

/// Real-time driver of a `CueScheduler`: the timeline is seconds since `start()` on a monotonic
/// clock, rendered into the sink in small chunks a little ahead of the clock (so a loaded
/// machine does not starve the player). A cue request renders at once, so its first sample
/// reaches the sink without waiting for the next chunk.
///
/// Thread-safe: every call takes one lock around the scheduler and the sink.
public final class LiveCuePlayer: @unchecked Sendable {
    /// Seconds of audio written ahead of the clock. A cue requested now starts at most this
    /// late in what the listener hears.
    public let lookahead: Double
    /// Period of the background rendering.
    public let chunk: Double

    private let lock = NSLock()
    private let scheduler: CueScheduler
    private var sink: any AudioSink
    private let report: @Sendable (String) -> Void
    private let epoch = ContinuousClock.now
    private var running = false
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    public init(
        speech: (any SpeechEngine)?, voice: VoiceSettings = .standard, policy: CuePolicy = .standard,
        sink: sending any AudioSink, lookahead: Double = 0.05, chunk: Double = 0.02,
        log: @escaping @Sendable (String) -> Void
    ) {
        scheduler = CueScheduler(speech: speech, voice: voice, policy: policy, origin: 0)
        self.sink = sink
        self.lookahead = lookahead
        self.chunk = chunk
        report = log
    }

    /// Seconds since the player was created: the timeline of `log`.
    public var now: Double { (ContinuousClock.now - epoch).inSeconds }

    /// Starts the background rendering thread.
    public func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !running, !stopped else { return }
        running = true
        let thread = Thread { [self] in
            while true {
                lock.lock()
                let keepGoing = running
                if keepGoing { renderAhead() }
                lock.unlock()
                guard keepGoing else { break }
                Thread.sleep(forTimeInterval: chunk)
            }
            finished.signal()
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

    @discardableResult
    public func say(_ text: String, urgent: Bool = false) -> CueOutcome {
        withScheduler { $0.say(text, at: now, urgent: urgent) }
    }

    public var voice: VoiceSettings {
        get { lock.withLock { scheduler.voice } }
        set { lock.withLock { scheduler.voice = newValue } }
    }

    /// What sounded and when (timeline = `now`).
    public var log: [CueRecord] { lock.withLock { scheduler.log } }

    /// Stops the clock-driven rendering, lets accepted cues finish (at most `drain` seconds of
    /// audio, rendered at once: the player plays out what it was given) and closes the sink.
    public func stop(drain: Double = 10) throws {
        lock.lock()
        let wasRunning = running
        running = false
        stopped = true
        lock.unlock()
        if wasRunning { finished.wait() }
        try lock.withLock {
            scheduler.setPulse(interval: nil, at: scheduler.renderedUpTo)
            try? scheduler.renderUntilQuiet(limit: drain, into: sink)
            try sink.close()
        }
    }

    private func withScheduler<T>(_ body: (CueScheduler) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        let result = body(scheduler)
        // At least 5 ms past what is already written: a cue that must first fade out a pulse
        // tick (3 ms) still gets its first sample out in this call. Capped, so a burst of
        // requests cannot run far ahead of the clock.
        if running {
            let clock = now
            renderAhead(upTo: max(clock + lookahead, min(scheduler.renderedUpTo + 0.005, clock + 2 * lookahead)))
        }
        return result
    }

    /// Must be called with the lock held.
    private func renderAhead(upTo target: Double? = nil) {
        do {
            try scheduler.render(upTo: target ?? now + lookahead, into: sink)
        } catch {
            report("audio: \(sink.name) failed (\(error)); audio is off")
            sink = NullSink()
        }
    }
}
