import Foundation
import GRDB
import Logging
import Synchronization

/// Watches the history table on SQLite's writer connection and announces `.eventsAppended` after
/// every commit that touched it, whichever method wrote.
///
/// GRDB ends a region observation that meets an error. Dropping the error would leave every
/// stream on the event hub's slow poll without a word, so a failure is logged, counted
/// (`CommitAnnouncements.observationFailures`, exported as a metric) and the observation started
/// again after `restartDelay`: streams keep their latency once the database answers again.
final class AppendedEventsObservation: Sendable {
    private let pool: DatabasePool
    private let commits: CommitAnnouncements
    private let restartDelay: Duration
    private let logger = Logger(label: "ridebeacon.store.sqlite")
    private let current = Mutex<(cancellable: AnyDatabaseCancellable?, stopped: Bool)>((nil, false))

    init(pool: DatabasePool, commits: CommitAnnouncements, restartDelay: Duration = .seconds(1)) {
        self.pool = pool
        self.commits = commits
        self.restartDelay = restartDelay
        start()
    }

    private func start() {
        let commits = commits
        let cancellable = DatabaseRegionObservation(tracking: Table("rideEvent"))
            .start(in: pool, onError: { [weak self] error in self?.failed(error) },
                   onChange: { _ in commits.announce(.eventsAppended) })
        let keep = current.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.cancellable = cancellable
            return true
        }
        if !keep { cancellable.cancel() }
    }

    /// The observation met `error` and has ended: say so, count it, and start again shortly.
    func failed(_ error: any Error) {
        // GRDB has ended it already; cancelling as well makes a second start the only watcher.
        current.withLock { state in
            state.cancellable?.cancel()
            state.cancellable = nil
        }
        commits.recordObservationFailure()
        logger.error("the event observation failed; streams fall back to polling until it restarts", metadata: ["error": "\(error)"])
        let delay = restartDelay
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            self?.start()
        }
    }

    func cancel() {
        let cancellable = current.withLock { state in
            state.stopped = true
            defer { state.cancellable = nil }
            return state.cancellable
        }
        cancellable?.cancel()
    }
}
