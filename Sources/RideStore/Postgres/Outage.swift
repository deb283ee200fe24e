import Foundation
import Synchronization

/// Whether the database is known to be unreachable: set when an operation ends `unavailable`,
/// cleared by the next operation the database answers (successfully or with its own error).
/// While it is set, operations wait for the database only briefly, so during an outage every
/// request gets its 503 promptly instead of each holding a connection slot for the whole
/// operation deadline; the pool keeps reconnecting whenever requests arrive, so recovery is
/// not delayed (RELIABILITY.md, "Durability").
final class Outage: Sendable {
    private let ongoing = Mutex(false)

    var isOngoing: Bool { ongoing.withLock { $0 } }

    func record(_ outcome: Result<Void, any Error>) {
        switch outcome {
        case .success:
            ongoing.withLock { $0 = false }
        case .failure(StoreError.unavailable):
            ongoing.withLock { $0 = true }
        case .failure(is CancellationError):
            break  // the caller gave up; says nothing about the database
        case .failure:
            ongoing.withLock { $0 = false }  // the database answered, if only with an error
        }
    }
}
