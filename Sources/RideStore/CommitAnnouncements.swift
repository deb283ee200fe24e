import Synchronization

/// What a committed write changed that the rest of the process must hear of.
public enum CommittedChange: Sendable, Equatable {
    /// Events were appended to the history (a request's or a ride's).
    case eventsAppended
    /// Tokens were revoked: whatever was remembered of them is stale.
    case tokensRevoked
}

/// A store's announcements of its own committed writes, made after the commit (GRDB's
/// `DatabaseRegionObservation`, in small): the event hub learns of an appended event from the
/// write itself, so no caller has to remember to tell it, and a forgotten call can no longer
/// hide behind the hub's slow poll.
///
/// ```swift
/// let observation = store.commits.observe { change in
///     if change == .eventsAppended { hub.wake() }
/// }
/// // ...
/// observation.cancel()
/// ```
///
/// Observers run on the committing task (SQLite: its writer queue), so they must be quick and
/// never block; waking a task is the intended use. Writes by other processes are not announced
/// here (PostgreSQL's notifications and the hub's poll cover those).
public final class CommitAnnouncements: Sendable {
    private struct Observers {
        var next = 0
        var byID: [Int: @Sendable (CommittedChange) -> Void] = [:]
    }

    private let observers = Mutex(Observers())
    private let failures = Atomic<Int>(0)

    public init() {}

    /// Calls `observer` after every commit that made `change`, until the observation is cancelled.
    public func observe(_ observer: @escaping @Sendable (CommittedChange) -> Void) -> CommitObservation {
        let id = observers.withLock { observers in
            observers.next += 1
            observers.byID[observers.next] = observer
            return observers.next
        }
        return CommitObservation { [weak self] in
            _ = self?.observers.withLock { $0.byID.removeValue(forKey: id) }
        }
    }

    /// How often the store's watch on its own commits failed (and was started again): while it
    /// is down, streams hear of new events only by the hub's poll.
    public var observationFailures: Int { failures.load(ordering: .relaxed) }

    func recordObservationFailure() { failures.add(1, ordering: .relaxed) }

    /// Called by the store once a write that made `change` has committed.
    public func announce(_ change: CommittedChange) {
        // Called outside the lock: an observer may observe or cancel in turn.
        let current = observers.withLock { Array($0.byID.values) }
        for observer in current { observer(change) }
    }
}

/// Ends a `CommitAnnouncements.observe`; cancelling twice is harmless.
public struct CommitObservation: Sendable {
    private let end: @Sendable () -> Void

    init(_ end: @escaping @Sendable () -> Void) { self.end = end }

    public func cancel() { end() }
}
