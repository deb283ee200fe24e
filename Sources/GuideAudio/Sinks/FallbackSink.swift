/// A sink that can be opened on demand; `FallbackSink` opens the next one when the current fails.
public struct SinkCandidate {
    public var name: String
    public var open: () throws -> any AudioSink
    public init(name: String, open: @escaping () throws -> any AudioSink) {
        self.name = name
        self.open = open
    }
}

/// Tries sinks in order: when one cannot be opened or fails while writing (audio device busy,
/// player gone), it logs why, opens the next and hands it the same samples. The last resort is
/// silence (`NullSink`), never a crash: guidance continues, and the log says audio is off.
public final class FallbackSink: AudioSink {
    private var current: any AudioSink
    private var remaining: [SinkCandidate]
    private let log: (String) -> Void

    /// The sink in use now.
    public var name: String { current.name }
    /// Every candidate failed: what is written goes nowhere.
    public var isSilent: Bool { current is NullSink }

    public init(_ candidates: [SinkCandidate], log: @escaping (String) -> Void) {
        self.remaining = candidates
        self.log = log
        current = NullSink()
        current = openNext(after: nil)
    }

    public func write(_ samples: [Int16]) throws {
        while true {
            do {
                try current.write(samples)
                return
            } catch {
                let failed = current
                try? failed.close()
                current = openNext(after: "\(error)")
            }
        }
    }

    public func close() throws { try current.close() }

    private func openNext(after failure: String?) -> any AudioSink {
        var reason = failure
        while !remaining.isEmpty {
            let candidate = remaining.removeFirst()
            do {
                let sink = try candidate.open()
                if let reason { log("audio: \(reason); falling back to \(candidate.name)") }
                return sink
            } catch {
                if let reason { log("audio: \(reason)") }
                reason = "\(error)"
            }
        }
        if let reason { log("audio: \(reason); no audio output left, audio is off") }
        return NullSink()
    }
}
