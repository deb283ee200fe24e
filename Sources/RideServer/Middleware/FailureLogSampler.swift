import Foundation
import HTTPTypes
import Synchronization

/// Failed authentications (401) and refusals over a limit (429) are what a flood is made of,
/// so they are not logged one line per request (a review's flood wrote 109 000 lines): the
/// first failure after a quiet `interval` is logged at once with what accumulated, the rest
/// only counted until the interval has passed. Every request is still counted by status in
/// `/metrics`; this only bounds the log to about one line per interval.
final class FailureLogSampler: Sendable {
    struct Summary: Equatable, Sendable {
        var unauthorized = 0
        var rateLimited = 0
        var total: Int { unauthorized + rateLimited }
    }

    static func isSampled(_ status: HTTPResponse.Status) -> Bool {
        status == .unauthorized || status == .tooManyRequests
    }

    let interval: TimeInterval
    private let now: @Sendable () -> Date
    /// What accumulated since the last line, and when that line was logged.
    private let state = Mutex<(pending: Summary, lastLogged: Date?)>((Summary(), nil))

    init(interval: TimeInterval = 10, now: @escaping @Sendable () -> Date) {
        self.interval = interval
        self.now = now
    }

    /// Counts one failure; returns the counts to log now (this one included), or nil when it
    /// should only be counted.
    func record(_ status: HTTPResponse.Status) -> Summary? {
        state.withLock { state in
            if status == .unauthorized { state.pending.unauthorized += 1 } else { state.pending.rateLimited += 1 }
            let time = now()
            if let last = state.lastLogged, time.timeIntervalSince(last) < interval { return nil }
            state.lastLogged = time
            defer { state.pending = Summary() }
            return state.pending
        }
    }
}
