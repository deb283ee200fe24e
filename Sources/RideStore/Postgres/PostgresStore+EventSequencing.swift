import Foundation
import PostgresNIO

extension PostgresStore {
    /// Moves every committed staged event into `ride_event`, in staging order, and announces
    /// the newest id on the events channel.
    ///
    /// Event ids must become visible in id order, or a listener resuming after id N could miss
    /// an N-1 that committed later. Writes used to take one global lock each and hold it until
    /// their commit, so every write waited for the previous write's commit (issue 14). Now
    /// only this short transaction takes the lock, and one run moves the committed events of
    /// every writer at once: under load writers queue behind one run and then find nothing
    /// left to move, which is a group commit. Runs are coalesced within a server too
    /// (`SequencingRuns`): every writer took the global lock in turn for a run of its own, which
    /// held the two servers' writes to one sequencing transaction at a time (≈ 340 writes/s).
    public func sequenceEvents() async throws {
        try await sequencingRuns.runStartingAfterNow { try await self.moveStagedEvents() }
    }

    /// One statement (`CALL rb_sequence_events_3`, which runs `rb_sequence_events_1` and commits
    /// before answering: TransitionProcedures): it takes the sequencing lock, then moves; its
    /// statements' snapshots are taken after the lock, so it sees everything committed before,
    /// and the previous run's moves. NOTIFY is delivered at commit, so other servers re-read the
    /// history exactly when the events become visible to them.
    private func moveStagedEvents() async throws {
        _ = try await mapped {
            try await self.db.rows(Prepared<TransitionSQL.SequenceEvents>(Self.eventChannel), logger: self.logger) { _ in () }
        }
    }

    /// Runs `write` (which staged an event), then sequences, so that when it returns its event
    /// is in the history. A failure to sequence does not undo the committed write: the next
    /// sequencing run (any write's, `serve`'s at start, an event hub's re-listen or poll) moves
    /// the event.
    func sequenced<T: Sendable>(_ write: () async throws -> T) async throws -> T {
        let result = try await write()
        do {
            try await sequenceEvents()
        } catch {
            logger.warning("sequencing staged events failed; the next run retries", metadata: ["error": .string("\(error)")])
        }
        // After the commit (and the sequencing, or its failure, which the hub's next run retries).
        commits.announce(.eventsAppended)
        return result
    }
}

/// One server's sequencing runs. A caller needs a run that starts after it asks (its write has
/// committed; a run already under way may have read the staged events before that). So callers
/// that ask while a run is under way share the one run queued behind it, and callers that ask
/// while a run is queued join it: however many writers finish together, at most two runs per
/// server are ever in flight or waiting.
actor SequencingRuns {
    private struct Run {
        var id: Int
        var task: Task<Void, any Error>
    }

    private var current: Run?
    private var queued: Run?
    private var lastID = 0

    func runStartingAfterNow(_ body: @escaping @Sendable () async throws -> Void) async throws {
        if let queued { return try await queued.task.value }
        lastID += 1
        let id = lastID
        let previous = current?.task
        let task = Task {
            if let previous { _ = await previous.result }
            self.started(id)
            do {
                try await body()
            } catch {
                self.finished(id)
                throw error
            }
            self.finished(id)
        }
        // No suspension since `queued` was read: the task cannot reach `started` before this.
        if previous == nil { current = Run(id: id, task: task) } else { queued = Run(id: id, task: task) }
        try await task.value
    }

    private func started(_ id: Int) {
        if queued?.id == id { current = queued; queued = nil }
    }

    private func finished(_ id: Int) {
        if current?.id == id { current = nil }
    }
}
