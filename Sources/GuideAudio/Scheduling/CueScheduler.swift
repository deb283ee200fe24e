/// Turns cue requests into one PCM timeline in which nothing overlaps.
///
/// Time is a plain number of seconds on the caller's timeline, so the same scheduler serves
/// the live guide (times from a clock, rendered in small chunks as the clock advances — see
/// `LiveCuePlayer`) and the simulator (virtual times, a whole walk rendered into a WAV faster
/// than real time). Requests are decided when rendering reaches their time:
///
/// - Every phrase is preceded by the attention tone; phrases never overlap each other, and at
///   least `phraseGap` of silence separates them.
/// - At most one phrase waits: a newer phrase replaces a waiting one (an urgent phrase is only
///   replaced by another urgent one), and a phrase that cannot start within `staleAfter` of
///   its request is dropped, not queued: an old distance misleads. Urgent phrases (touch,
///   confirmation, signal lost) state facts that stay true, so they wait as long as it takes.
/// - Non-urgent phrases are rate limited: one does not start when `maxPhrases` phrases started
///   within the last `ratePeriod` (refused at request time when already known, else at its start).
/// - Earcons never overlap speech or each other: they queue behind the sounding cue and are
///   dropped if they cannot start within `earconWait`. A waiting phrase goes before waiting
///   earcons.
/// - The proximity pulse is background: a tick sounds only when nothing else does, is cut
///   (with a 3 ms fade) when a cue must start, and resumes `pulseResumeDelay` after it.
///
/// Not Sendable: drive it from one task (the live player wraps it in a lock).
public final class CueScheduler {
    public let policy: CuePolicy
    /// Used for the next phrase synthesised.
    public var voice: VoiceSettings
    /// Timeline second of sample 0.
    public let origin: Double
    /// Every cue requested, in request order, with its fate (index = id).
    public private(set) var log: [CueRecord] = []
    /// Samples rendered so far.
    public private(set) var renderedSamples = 0

    private let speech: (any SpeechEngine)?
    private var requests: [Request] = []
    private var foreground: Playing?
    private var tick: Playing?
    private var waitingPhrase: Request?
    private var waitingEarcons: [Request] = []
    private var pulseInterval: Int?
    private var nextPulse = 0
    private var lastTickStart: Int?
    private var pulseQuietUntil = 0
    private var phraseFreeAt = 0
    /// Start times of sounded phrases, oldest first, trimmed to the rate period (the log keeps all).
    private var phraseStarts: [Double] = []

    private static let rate = Double(AudioFormat.sampleRate)
    private static let preemptFade = 66

    /// `speech` nil: phrases fail with a reason (earcons still sound).
    public init(speech: (any SpeechEngine)?, voice: VoiceSettings = .standard, policy: CuePolicy = .standard, origin: Double = 0) {
        self.speech = speech
        self.voice = voice
        self.policy = policy
        self.origin = origin
    }

    /// Timeline second up to which audio has been rendered.
    public var renderedUpTo: Double { time(ofSample: renderedSamples) }

    /// Nothing sounding or waiting, pulse aside.
    public var isQuiet: Bool {
        foreground == nil && waitingPhrase == nil && waitingEarcons.isEmpty
            && !requests.contains { if case .pulse = $0.action { false } else { true } }
    }

    /// Ticks every `interval` seconds from `time` on; nil silences the pulse. Intervals shorter
    /// than a tick make the pulse continuous (touch range).
    public func setPulse(interval: Double?, at time: Double) {
        let samples = interval.map { max(Earcon.pulse.samples.count, Int(($0 * Self.rate).rounded())) }
        insert(Request(sample: sample(at: time), record: nil, action: .pulse(samples)))
    }

    @discardableResult
    public func play(_ earcon: Earcon, at time: Double) -> CueOutcome {
        let id = addRecord(.earcon(earcon), at: time, urgent: false)
        if time + policy.earconWait < renderedUpTo {
            log[id].fate = .droppedStale
            return .droppedStale(id: id)
        }
        insert(Request(sample: sample(at: time), record: id, action: .earcon(earcon.samples)))
        return .accepted(id: id)
    }

    /// One tick of the car's locator sound: queued like an earcon (never over speech, dropped
    /// if it cannot start within `earconWait`; the next tick is a second away).
    @discardableResult
    public func playLocatorTick(at time: Double) -> CueOutcome {
        let id = addRecord(.locatorTick, at: time, urgent: false)
        if time + policy.earconWait < renderedUpTo {
            log[id].fate = .droppedStale
            return .droppedStale(id: id)
        }
        insert(Request(sample: sample(at: time), record: id, action: .earcon(LocatorTick.samples)))
        return .accepted(id: id)
    }

    /// Synthesises `text` now (so the caller learns of a voice fallback at once) and schedules
    /// it with its attention tone. `urgent` phrases (touch, confirmation, signal lost) bypass the
    /// rate limit and are not replaced by ordinary ones.
    @discardableResult
    public func say(_ text: String, at time: Double, urgent: Bool = false) -> CueOutcome {
        let voice = voice
        return admit(text, at: time, urgent: urgent) { [speech] in
            speech.map { speech in Result { () throws(SpeechError) in try speech.synthesize(text, voice: voice) } }
        }
    }

    /// `say` with the phrase synthesised beforehand (nil: there is no speech engine), so a caller
    /// that holds a lock around the scheduler need not synthesise under it (`LiveCuePlayer`:
    /// espeak-ng takes tens of milliseconds, the render thread waits for nobody). The phrase
    /// is judged by `time`, the moment it was asked for, as `say` judges it.
    @discardableResult
    public func say(_ text: String, at time: Double, urgent: Bool = false,
                    synthesized: Result<SpokenPhrase, SpeechError>?) -> CueOutcome {
        admit(text, at: time, urgent: urgent) { synthesized }
    }

    /// Stale and rate-limit checks, then the phrase from `phrase` (asked for only if it passes).
    private func admit(_ text: String, at time: Double, urgent: Bool,
                       phrase: () -> Result<SpokenPhrase, SpeechError>?) -> CueOutcome {
        let id = addRecord(.speech(text), at: time, urgent: urgent)
        if !urgent && time + policy.staleAfter < renderedUpTo {
            log[id].fate = .droppedStale
            return .droppedStale(id: id)
        }
        if !urgent && phrasesStarted(after: time - policy.ratePeriod) >= policy.maxPhrases {
            log[id].fate = .rateLimited
            return .rateLimited(id: id)
        }
        switch phrase() {
        case nil:
            log[id].fate = .failed("speech is off")
            return .failed(id: id, "speech is off")
        case .success(let phrase):
            log[id].voiceFallback = phrase.fallback
            log[id].synthesisSeconds = phrase.synthesisSeconds
            insert(Request(sample: sample(at: time), record: id, action: .phrase(phrase.samples)))
            return .accepted(id: id)
        case .failure(let error):
            log[id].fate = .failed(error.description)
            return .failed(id: id, error.description)
        }
    }

    /// Renders the timeline from `renderedUpTo` to `time` (nothing if `time` is not later).
    public func render(upTo time: Double) -> [Int16] {
        let target = sample(at: time)
        var out: [Int16] = []
        out.reserveCapacity(max(0, target - renderedSamples))
        while renderedSamples < target {
            admitDueRequests()
            startForegroundIfFree()
            startTickIfDue()
            let count = min(target - renderedSamples, samplesUntilNextEvent())
            emit(count, into: &out)
        }
        return out
    }

    public func render(upTo time: Double, into sink: any AudioSink) throws {
        let samples = render(upTo: time)
        if !samples.isEmpty { try sink.write(samples) }
    }

    /// Renders until every accepted cue has sounded or been dropped (the pulse is not waited
    /// for), at most `limit` seconds.
    public func renderUntilQuiet(limit: Double = 30, into sink: any AudioSink) throws {
        let deadline = renderedUpTo + limit
        while !isQuiet && renderedUpTo < deadline {
            let before = renderedSamples
            try render(upTo: min(deadline, renderedUpTo + 0.1), into: sink)
            // The deadline can round to the sample already rendered while, in seconds, it is
            // still an ulp ahead: without this the loop would never end (seen: `driver arrive`
            // spinning in its player's stop).
            if renderedSamples == before { break }
        }
    }

    // MARK: - Timeline

    private enum Action {
        case pulse(Int?)
        case earcon([Int16])
        case phrase([Int16])
    }

    private struct Request {
        var sample: Int
        var record: Int?
        var action: Action
    }

    private struct Playing {
        var samples: [Int16]
        var offset = 0
        var isPhrase: Bool
        /// Set for pulse ticks, whose end moves when a cue cuts them short.
        var record: Int? = nil
        var fadingOut = false
        var remaining: Int { samples.count - offset }
    }

    private func time(ofSample sample: Int) -> Double { origin + Double(sample) / Self.rate }
    private func sample(at time: Double) -> Int { max(0, Int(((time - origin) * Self.rate).rounded())) }

    private func addRecord(_ kind: CueKind, at time: Double, urgent: Bool) -> Int {
        log.append(CueRecord(id: log.count, kind: kind, requestedAt: time, urgent: urgent, fate: .pending))
        return log.count - 1
    }

    private func phrasesStarted(after time: Double) -> Int {
        phraseStarts.reversed().prefix { $0 > time }.count
    }

    /// Keeps `requests` in time order; equal times keep request order.
    private func insert(_ request: Request) {
        let index = requests.lastIndex { $0.sample <= request.sample }.map { $0 + 1 } ?? 0
        requests.insert(request, at: index)
    }

    private func admitDueRequests() {
        while let first = requests.first, first.sample <= renderedSamples {
            requests.removeFirst()
            switch first.action {
            case .pulse(let interval):
                admitPulse(interval)
            case .earcon:
                waitingEarcons.append(first)
            case .phrase:
                admitPhrase(first)
            }
        }
    }

    private func admitPulse(_ interval: Int?) {
        let wasOff = pulseInterval == nil
        pulseInterval = interval
        guard let interval else { return }
        if wasOff || lastTickStart == nil {
            nextPulse = renderedSamples
        } else if let lastTickStart {
            // A shorter interval takes effect from the last tick, not after the old one's wait.
            nextPulse = max(renderedSamples, min(nextPulse, lastTickStart + interval))
        }
    }

    private func admitPhrase(_ request: Request) {
        if let waiting = waitingPhrase, let waitingID = waiting.record, let newID = request.record {
            if log[waitingID].urgent && !log[newID].urgent {
                log[newID].fate = .replaced
                return
            }
            log[waitingID].fate = .replaced
        }
        waitingPhrase = request
    }

    private func dropExpiredWaiting() {
        if let waiting = waitingPhrase, let id = waiting.record, !log[id].urgent,
           renderedSamples - waiting.sample > Int(policy.staleAfter * Self.rate) {
            log[id].fate = .droppedStale
            waitingPhrase = nil
        }
        let earconLimit = Int(policy.earconWait * Self.rate)
        waitingEarcons.removeAll { request in
            guard renderedSamples - request.sample > earconLimit, let id = request.record else { return false }
            log[id].fate = .droppedBusy
            return true
        }
    }

    private func startForegroundIfFree() {
        guard foreground == nil else { return }
        dropExpiredWaiting()
        let ready = waitingPhrase.map { _ in renderedSamples >= phraseFreeAt } ?? !waitingEarcons.isEmpty
        guard ready else { return }
        if var playing = tick {
            guard !playing.fadingOut else { return }
            // Cut the tick short with a fade rather than delay the cue by the rest of it.
            playing.fadingOut = true
            let tail = min(playing.remaining, Self.preemptFade)
            if let id = playing.record { log[id].end = time(ofSample: renderedSamples + tail) }
            playing.samples = (0..<tail).map { index in
                let value = Double(playing.samples[playing.offset + index]) * Double(tail - index) / Double(tail + 1)
                return Int16(value)
            }
            playing.offset = 0
            tick = playing
            return
        }
        if let phrase = waitingPhrase, case .phrase(let words) = phrase.action, let id = phrase.record {
            waitingPhrase = nil
            // Checked again at the start: requests made ahead of rendering could not see every
            // phrase that starts before them.
            if !log[id].urgent && phrasesStarted(after: time(ofSample: renderedSamples) - policy.ratePeriod) >= policy.maxPhrases {
                log[id].fate = .rateLimited
                return startForegroundIfFree()
            }
            let attention = Earcon.attention.samples
            let gap = [Int16](repeating: 0, count: Int(policy.attentionGap * Self.rate))
            let samples = attention + gap + words
            log[id].speechStart = time(ofSample: renderedSamples + attention.count + gap.count)
            let now = time(ofSample: renderedSamples)
            phraseStarts.removeAll { $0 <= now - policy.ratePeriod }
            phraseStarts.append(now)
            begin(Playing(samples: samples, isPhrase: true), record: id)
        } else if !waitingEarcons.isEmpty {
            let earcon = waitingEarcons.removeFirst()
            guard case .earcon(let samples) = earcon.action, let id = earcon.record else { return }
            begin(Playing(samples: samples, isPhrase: false), record: id)
        }
    }

    private func begin(_ playing: Playing, record id: Int) {
        log[id].fate = .sounded
        log[id].start = time(ofSample: renderedSamples)
        log[id].startSample = renderedSamples
        log[id].end = time(ofSample: renderedSamples + playing.samples.count)
        foreground = playing
    }

    private func startTickIfDue() {
        guard foreground == nil, tick == nil, let interval = pulseInterval,
              renderedSamples >= nextPulse, renderedSamples >= pulseQuietUntil else { return }
        let id = addRecord(.earcon(.pulse), at: time(ofSample: renderedSamples), urgent: false)
        let samples = Earcon.pulse.samples
        log[id].fate = .sounded
        log[id].start = time(ofSample: renderedSamples)
        log[id].startSample = renderedSamples
        log[id].end = time(ofSample: renderedSamples + samples.count)
        tick = Playing(samples: samples, isPhrase: false, record: id)
        lastTickStart = renderedSamples
        nextPulse = renderedSamples + interval
    }

    /// Samples until something may change: a request falls due, a sound ends, a wait expires.
    private func samplesUntilNextEvent() -> Int {
        var next = Int.max
        func consider(_ sample: Int) { if sample > renderedSamples { next = min(next, sample) } }
        if let first = requests.first { consider(first.sample) }
        if let foreground { consider(renderedSamples + foreground.remaining) }
        if let tick { consider(renderedSamples + tick.remaining) }
        if foreground == nil {
            if pulseInterval != nil { consider(max(nextPulse, pulseQuietUntil)) }
            if let waiting = waitingPhrase {
                consider(phraseFreeAt)
                if let id = waiting.record, !log[id].urgent { consider(waiting.sample + Int(policy.staleAfter * Self.rate) + 1) }
            }
            if let earcon = waitingEarcons.first { consider(earcon.sample + Int(policy.earconWait * Self.rate) + 1) }
        }
        return max(1, next - renderedSamples)
    }

    private func emit(_ count: Int, into out: inout [Int16]) {
        if var playing = foreground ?? tick {
            let isForeground = foreground != nil
            let take = min(count, playing.remaining)
            out.append(contentsOf: playing.samples[playing.offset..<(playing.offset + take)])
            if take < count { out.append(contentsOf: repeatElement(0, count: count - take)) }
            playing.offset += take
            renderedSamples += count
            let finished = playing.remaining == 0
            if isForeground {
                foreground = finished ? nil : playing
                if finished { finishedForeground(phrase: playing.isPhrase, endedAt: renderedSamples - (count - take)) }
            } else {
                tick = finished ? nil : playing
            }
        } else {
            out.append(contentsOf: repeatElement(0, count: count))
            renderedSamples += count
        }
    }

    private func finishedForeground(phrase: Bool, endedAt end: Int) {
        pulseQuietUntil = end + Int(policy.pulseResumeDelay * Self.rate)
        if phrase { phraseFreeAt = end + Int(policy.phraseGap * Self.rate) }
    }
}
