/// What a cue is.
public enum CueKind: Equatable, Sendable, CustomStringConvertible {
    case earcon(Earcon)
    case speech(String)
    /// One tick of the car's locator sound (`LocatorTick`), played on the driver's device.
    case locatorTick

    /// "pulse", "closer", …, or "speech": the key of `CueLog.soundedCounts`.
    public var name: String {
        switch self {
        case .earcon(let earcon): earcon.rawValue
        case .speech: "speech"
        case .locatorTick: "locator_tick"
        }
    }

    public var description: String {
        switch self {
        case .earcon(let earcon): "[\(earcon.rawValue)]"
        case .speech(let text): "\"\(text)\""
        case .locatorTick: "[locator tick]"
        }
    }
}

/// What became of a cue.
public enum CueFate: Equatable, Sendable {
    /// Accepted; not sounded yet.
    case pending
    /// Rendered; `CueRecord.start`/`end` say when.
    case sounded
    /// A newer (or urgent) phrase took its place while it waited.
    case replaced
    /// A phrase could not start within `CuePolicy.staleAfter` of its request.
    case droppedStale
    /// An earcon could not start within `CuePolicy.earconWait` of its request.
    case droppedBusy
    /// Refused at request time by the phrase rate limit.
    case rateLimited
    /// Synthesis failed (the message says why).
    case failed(String)
}

/// One cue request and its fate: the scheduler's log of what actually sounded and when.
public struct CueRecord: Equatable, Sendable {
    public var id: Int
    public var kind: CueKind
    /// Timeline second the cue was asked for.
    public var requestedAt: Double
    public var urgent: Bool
    public var fate: CueFate
    /// Timeline second the first sample sounded (for speech: the attention tone's start).
    public var start: Double?
    /// Timeline second the phrase's words begin (after the attention tone); speech only.
    public var speechStart: Double?
    /// Timeline second the last sample sounded.
    public var end: Double?
    /// Sample index (from the timeline's origin) of the first sample; lets a caller find the
    /// cue in what it wrote to a sink.
    public var startSample: Int?
    /// Speech only: when the requested voice was missing and which one spoke.
    public var voiceFallback: VoiceFallback?
    /// Speech only: wall-clock seconds espeak-ng took.
    public var synthesisSeconds: Double?
}

extension Array where Element == CueRecord {
    /// Number of sounded cues by `CueKind.name`.
    public var soundedCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for record in self where record.fate == .sounded { counts[record.kind.name, default: 0] += 1 }
        return counts
    }
}

/// What `CueScheduler.say` / `play` decided at request time. The final fate (sounded,
/// replaced, dropped) is in the scheduler's `log` under `id`.
public enum CueOutcome: Equatable, Sendable {
    /// Accepted: will sound unless a newer phrase replaces it, it goes stale, or (requested
    /// ahead of rendering) the rate limit refuses it when it would start.
    case accepted(id: Int)
    /// Refused by the phrase rate limit.
    case rateLimited(id: Int)
    /// Already older than `CuePolicy.staleAfter` (or `earconWait`) when it arrived.
    case droppedStale(id: Int)
    /// Speech synthesis failed; the message is fit to log.
    case failed(id: Int, String)

    public var id: Int {
        switch self {
        case .accepted(let id), .rateLimited(let id), .droppedStale(let id), .failed(let id, _): id
        }
    }
}
