import Foundation

/// Whether the database is known to be unreachable: set when an operation ends `unavailable`,
/// cleared by the next operation the database answers (successfully or with its own error).
/// While it is set, operations wait for the database only briefly, so during an outage every
/// request gets its 503 promptly instead of each holding a connection slot for the whole
/// operation deadline; the pool keeps reconnecting whenever requests arrive, so recovery is
/// not delayed (RELIABILITY.md, "Durability").
final class Outage: @unchecked Sendable {
    private let lock = NSLock()
    private var ongoing = false

    var isOngoing: Bool { lock.withLock { ongoing } }

    func record(_ outcome: Result<Void, any Error>) {
        switch outcome {
        case .success:
            lock.withLock { ongoing = false }
        case .failure(StoreError.unavailable):
            lock.withLock { ongoing = true }
        case .failure(is CancellationError):
            break  // the caller gave up; says nothing about the database
        case .failure:
            lock.withLock { ongoing = false }  // the database answered, if only with an error
        }
    }
}
