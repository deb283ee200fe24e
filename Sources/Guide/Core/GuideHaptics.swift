import GuideAudio
import Phrasebook

/// Whether the guide vibrates (`--haptics`, saved in settings): `on` beside the sounds, `off`,
/// or `only`: silent guidance (noisy streets, deaf-blind passengers): vibrations and the printed
/// text, no audio.
public enum HapticsMode: String, CaseIterable, Sendable, Codable {
    case on, off, only

    public var vibrates: Bool { self != .off }
    public var sounds: Bool { self != .only }
}

/// One vibration pattern. Each is told apart by touch alone: the count of taps, their length
/// and their spacing (the patterns themselves are feedbackd's theme, deploy/feedbackd).
public enum HapticEvent: String, CaseIterable, Sendable, Codable {
    /// One short tap; repeated faster as the distance falls, like the audio pulse.
    case pulse
    /// Two short taps: the trend says closer.
    case closer
    /// One long buzz: the trend says farther.
    case farther
    /// Three quick taps: within reach, reach out.
    case veryClose = "very_close"
    /// A strong half-second buzz: the touch is detected, confirm now.
    case touch
    /// Two long buzzes: the ride is confirmed.
    case confirmed
    /// A rising swell: the driver has arrived, guiding begins.
    case arrived
    /// Five hard taps: stop, keep still (signal lost, car ahead, across the street, cancelled).
    case urgent

    /// feedbackd's event name (the theme's `event-name`).
    public var feedbackEvent: String { "ridebeacon-" + rawValue.replacingOccurrences(of: "_", with: "-") }
}

/// Where haptic events go: feedbackd (the `FeedbackdHaptics` adapter in the CLI), a recorder in
/// tests and the simulator.
public protocol HapticOutput: Sendable {
    func trigger(_ event: HapticEvent)
}

/// One haptic event, stamped with the guide time it was decided at.
public struct GuideHaptic: Equatable, Sendable, CustomStringConvertible {
    public var time: Double
    public var event: HapticEvent
    public init(time: Double, event: HapticEvent) {
        self.time = time
        self.event = event
    }
    public var description: String { "<\(event.rawValue)>" }
}

/// Turns the guide's actions into vibrations, the same way for the live guide and the
/// simulator: the earcon or phrase a moment makes, read with the core's state after it (the
/// touch earcon is both "touch detected" and "confirmed"; "very close" is felt when the band
/// reaches reach even when verbosity does not say it). The proximity pulse is not an event here:
/// `.pulse(interval:)` sets a cadence (`HapticCadence`), as it does for the audio ticks.
public struct GuideHaptics: Sendable {
    /// The shortest haptic pulse interval, s: a 25 ms tap needs room to be felt as separate taps.
    public static let fastestPulse = 0.3
    private var lastBand: DistanceBands.Band?

    public init() {}

    /// The events for `actions` (one `handle` call's), with `core` as it is after them.
    public mutating func events(for actions: [GuideAction], core: GuideCore) -> [GuideHaptic] {
        var out: [GuideHaptic] = []
        var time = 0.0
        func add(_ event: HapticEvent) {
            if out.last?.event == event, out.last?.time == time { return }
            out.append(GuideHaptic(time: time, event: event))
        }
        for action in actions {
            guard case .cue(let cue) = action else { continue }
            time = cue.time
            switch cue.sound {
            case .earcon(.attention): add(.arrived)
            case .earcon(.closer): add(.closer)
            case .earcon(.farther): add(.farther)
            case .earcon(.signalLost): add(.urgent)
            case .earcon(.touch): add(core.state == .confirmed ? .confirmed : .touch)
            case .earcon: break
            case .speech(let utterance):
                if utterance.keys.contains(where: Self.urgentKeys.contains) { add(.urgent) }
            }
        }
        let band = core.spokenBand
        if band == .veryClose, lastBand != .veryClose, !core.isOver, core.state != .touch {
            out.append(GuideHaptic(time: core.lastEstimate?.time ?? time, event: .veryClose))
        }
        lastBand = band
        return out
    }

    /// Phrases that are a warning to stop or stay: felt as `urgent`.
    static let urgentKeys: Set<PhraseID> = [.guideCarAhead, .guideCarAcross, .guideRideCancelled, .guideDriverComing]

    /// The haptic pulse interval for the guide's pulse interval (nil: no pulse).
    public static func pulseInterval(_ interval: Double?) -> Double? {
        interval.map { max(fastestPulse, $0) }
    }
}

/// The haptic proximity pulse's cadence, on the guide's clock: `.pulse(interval:)` sets it (at
/// least `GuideHaptics.fastestPulse` apart), `due(until:)` gives the taps that fall due.
public struct HapticCadence: Sendable, Equatable {
    public private(set) var interval: Double?
    private var next = 0.0

    public init() {}

    public mutating func set(_ guideInterval: Double?, at time: Double) {
        guard let haptic = GuideHaptics.pulseInterval(guideInterval) else {
            interval = nil
            return
        }
        if interval == nil { next = time }
        interval = haptic
        // A quicker cadence starts from the next tap, not one interval of the old one away.
        next = min(next, time + haptic)
    }

    /// The taps due up to `time` (their times), each once.
    public mutating func due(until time: Double) -> [Double] {
        guard let interval else { return [] }
        var taps: [Double] = []
        while next <= time {
            taps.append(next)
            next += interval
        }
        return taps
    }
}

/// The guide's vibrations in real time: events as the core decides them, the pulse on its
/// cadence, polled after every input (the guide's 20 Hz tick is one). Sends go to `output`
/// (feedbackd), which must not block.
public struct LiveHaptics: Sendable {
    public let output: any HapticOutput
    private var haptics = GuideHaptics()
    private var cadence = HapticCadence()

    public init(output: any HapticOutput) { self.output = output }

    public mutating func after(_ actions: [GuideAction], core: GuideCore, now: Double) {
        for haptic in haptics.events(for: actions, core: core) { output.trigger(haptic.event) }
        for action in actions {
            if case .pulse(let interval) = action { cadence.set(interval, at: now) }
        }
        for _ in cadence.due(until: now) { output.trigger(.pulse) }
    }

    public mutating func stop() { cadence.set(nil, at: 0) }
}
