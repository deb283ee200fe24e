import Foundation
import GRDB
import Synchronization

/// SQLite's writes, committed in groups. Every write transaction ended in an fsync of the WAL
/// (`synchronous = FULL`, so an acknowledged write survives power loss), and one writer at a time
/// waits for it: under 32 concurrent writers the server used 0.7 of a core while requests queued
/// for 23 ms (BENCHMARKS.md, "Ride server"). Writes that arrive while one group commits form the
/// next group: one transaction, each write in its own savepoint, one commit, one fsync.
///
/// Each write keeps its own all-or-nothing: one that throws is rolled back to its savepoint and
/// gets its own error; the others go on. Nobody hears "done" before the group's commit returns,
/// so an acknowledged write is on disk; if the commit fails every write of the group gets the
/// error (none of them is stored). A write sees the earlier writes of its group, exactly as if
/// they had committed just before it.
final class GroupCommit: Sendable {
    /// What a write leaves for after the commit: its answer, or its own error.
    private enum Outcome {
        case succeeded(@Sendable () -> Void, fail: @Sendable (any Error) -> Void)
        case failed(@Sendable () -> Void)
    }

    private struct Job {
        let run: @Sendable (Database) -> Outcome
        let fail: @Sendable (any Error) -> Void
    }

    private struct Queue {
        var jobs: [Job] = []
        var committing = false
    }

    private let pool: DatabasePool
    private let queue = Mutex(Queue())
    /// A bound on one transaction's length, so a flood of writes still commits steadily.
    private let maximumGroup: Int

    init(pool: DatabasePool, maximumGroup: Int = 64) {
        self.pool = pool
        self.maximumGroup = maximumGroup
    }

    /// Writes waiting for the next group (tests hold a group open to fill the next one).
    var waiting: Int { queue.withLock { $0.jobs.count } }

    func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(run: { db in
                do {
                    var result: T?
                    try db.inSavepoint {
                        result = try body(db)
                        return .commit
                    }
                    let answer = result!
                    return .succeeded({ continuation.resume(returning: answer) }, fail: { continuation.resume(throwing: $0) })
                } catch {
                    return .failed { continuation.resume(throwing: error) }
                }
            }, fail: { continuation.resume(throwing: $0) })
            enqueue(job)
        }
    }

    private func enqueue(_ job: Job) {
        let startsGroup = queue.withLock { queue in
            queue.jobs.append(job)
            guard !queue.committing else { return false }
            queue.committing = true
            return true
        }
        if startsGroup { commitNextGroup() }
    }

    private func commitNextGroup() {
        let group: [Job] = queue.withLock { queue in
            let group = Array(queue.jobs.prefix(maximumGroup))
            queue.jobs.removeFirst(group.count)
            if group.isEmpty { queue.committing = false }
            return group
        }
        guard !group.isEmpty else { return }
        pool.asyncWriteWithoutTransaction { db in
            var outcomes: [Outcome] = []
            do {
                try db.inTransaction(.immediate) {
                    outcomes = group.map { $0.run(db) }
                    return .commit
                }
            } catch {
                // Nothing of the group is stored: a write that had failed on its own keeps its
                // error, the others get the commit's (or the begin's).
                for (index, job) in group.enumerated() {
                    switch outcomes.indices.contains(index) ? outcomes[index] : nil {
                    case .failed(let resume)?: resume()
                    case .succeeded(_, let fail)?: fail(error)
                    case nil: job.fail(error)
                    }
                }
                self.commitNextGroup()
                return
            }
            for outcome in outcomes {
                switch outcome {
                case .succeeded(let resume, _): resume()
                case .failed(let resume): resume()
                }
            }
            self.commitNextGroup()
        }
    }
}
