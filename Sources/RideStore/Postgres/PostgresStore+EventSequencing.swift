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
    /// left to move, which is a group commit.
    public func sequenceEvents() async throws {
        try await transaction { conn in
            try await conn.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.eventSequencing))", logger: self.logger)
            // The statement's snapshot is taken after the lock: it sees everything committed
            // before, and the previous run's moves. NOTIFY is delivered at commit, so other
            // servers re-read the history exactly when the events become visible to them.
            try await conn.query("""
                WITH moved AS (DELETE FROM ride_event_pending RETURNING *),
                appended AS (
                    INSERT INTO ride_event (request_id, ride_id, sequence, kind, state, actor_id, at, detail)
                    SELECT request_id, ride_id, sequence, kind, state, actor_id, at, detail FROM moved ORDER BY pending_id
                    RETURNING id)
                SELECT pg_notify(\(Self.eventChannel), MAX(id)::text) FROM appended HAVING COUNT(*) > 0
                """, logger: self.logger)
        }
    }

    /// Runs `write` (which staged an event), then sequences, so that when it returns its event
    /// is in the history. A failure to sequence does not undo the committed write: the next
    /// sequencing run (any write's, or an event hub's wake-up or poll) moves the event.
    func sequenced<T: Sendable>(_ write: () async throws -> T) async throws -> T {
        let result = try await write()
        do {
            try await sequenceEvents()
        } catch {
            logger.warning("sequencing staged events failed; the next run retries", metadata: ["error": .string("\(error)")])
        }
        return result
    }
}
