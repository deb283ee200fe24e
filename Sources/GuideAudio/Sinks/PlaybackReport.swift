import Foundation
import Synchronization

/// Wraps a sink and counts what actually reached an output: sounding samples written to a sink
/// that is not silence (`NullSink`, or a `FallbackSink` left with none). The driver's device
/// asks it whether the locator tick played before the passenger is told it did (issue 22):
/// silence is never announced as a sound. Locked: the player's thread writes, another reads.
///
/// @unchecked Sendable: `inner` is written and closed only by the one player that owns this sink
/// (under its lock); what other threads read is in `counts`.
public final class PlaybackReportingSink: AudioSink, @unchecked Sendable {
    private let inner: any AudioSink
    /// Sounding samples written, and the output's failure if it failed.
    private let counts = Mutex<(sounding: Int, failure: String?)>((0, nil))

    public init(_ inner: any AudioSink) { self.inner = inner }

    public var name: String { inner.name }

    /// Whether writes reach an output at all.
    public var reachesOutput: Bool {
        if inner is NullSink { return false }
        if let fallback = inner as? FallbackSink { return !fallback.isSilent }
        return true
    }

    /// Sounding samples (|s| above 1 % of full scale) written to an output so far.
    public var soundingSamples: Int { counts.withLock { $0.sounding } }

    /// nil when sounding samples reached an output after `before` (a `soundingSamples` taken
    /// earlier); otherwise why not, in words.
    public func playedSince(_ before: Int) -> String? {
        if let failure = counts.withLock({ $0.failure }) { return "the audio output failed: \(failure)" }
        guard reachesOutput else { return "no audio output was found (\(inner.name))" }
        return soundingSamples > before ? nil : "no sound was written to \(inner.name)"
    }

    public func write(_ samples: [Int16]) throws {
        do {
            try inner.write(samples)
        } catch {
            counts.withLock { $0.failure = "\(error)" }
            throw error
        }
        guard reachesOutput else { return }
        let threshold = Int16.max / 100
        let count = samples.reduce(0) { $0 + (abs(Int($1)) > Int(threshold) ? 1 : 0) }
        counts.withLock { $0.sounding += count }
    }

    public func close() throws { try inner.close() }
}
