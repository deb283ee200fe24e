import Foundation
import GRDB

extension SQLiteStore {
    /// A keyed note's stored answer: its event's id (the event is read back on a replay, so the
    /// row holds no copy of the event).
    private struct StoredNote: Codable {
        var eventID: Int64
    }

    public func recordRideNote(_ note: RideNote, idempotency key: IdempotencyScope?) async throws -> KeyedRideNoteRecording {
        let at = Date(timeIntervalSince1970: (note.at.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        return try await write { db in
            // Not `idempotent`: a refusal (wrong state) stores nothing, and a replay says so.
            if let key, let stored = try Self.storedResult(StoredNote.self, db, key, operation: note.idempotencyOperation) {
                guard let event = try RideEvent.fetchOne(db, key: stored.eventID) else {
                    throw StoreError.unavailable("the \(note.kind) event of idempotency key \(key.key) is not in the history")
                }
                return KeyedRideNoteRecording(.recorded(event), isReplay: true)
            }
            guard let ride = try RideRecord.fetchOne(db, key: note.rideID) else { throw StoreError.notFound("ride \(note.rideID)") }
            guard note.states.contains(ride.state) else { return KeyedRideNoteRecording(.wrongState(ride.state)) }
            if let after = note.requiresEarlier {
                let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM rideEvent WHERE rideID = ? AND kind = ?"),
                                             arguments: [note.rideID, after]) ?? 0
                guard count > 0 else { return KeyedRideNoteRecording(.nothingToAnswer) }
            }
            if let refusal = try Self.bounds(db, note) { return KeyedRideNoteRecording(refusal) }
            try Self.appendEvent(db, requestID: ride.requestID, rideID: ride.id, kind: note.kind, state: ride.state,
                                 actor: note.actorID, at: at, detail: note.detail)
            guard let event = try RideEvent.fetchOne(db, key: db.lastInsertedRowID) else {
                throw StoreError.unavailable("the \(note.kind) event just written cannot be read back")
            }
            // In the note's transaction: both commit, or neither.
            if let key { try Self.storeResult(StoredNote(eventID: event.id), db, key, operation: note.idempotencyOperation) }
            return KeyedRideNoteRecording(.recorded(event))
        }
    }

    /// The note's limits (issue 36), read under the write's transaction: nil when it may be written.
    private static func bounds(_ db: Database, _ note: RideNote) throws -> RideNoteRecording? {
        let count = { (kind: RideEventKind) in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM rideEvent WHERE rideID = ? AND kind = ?"),
                             arguments: [note.rideID, kind]) ?? 0
        }
        if let limit = note.perRideLimit, try count(note.kind) >= limit { return .limitReached(limit) }
        if !note.unchangedAmong.isEmpty {
            let kinds = note.unchangedAmong.map(\.rawValue)
            let newest = try String.fetchOne(db, sql: """
                SELECT kind FROM rideEvent WHERE rideID = ? AND kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))
                ORDER BY id DESC LIMIT 1
                """, arguments: StatementArguments([note.rideID] + kinds))
            if newest == note.kind.rawValue { return .unchanged }
        }
        if note.answersOnePerRequest, let requests = note.requiresEarlier, try count(note.kind) >= count(requests) { return .nothingToAnswer }
        return nil
    }
}
