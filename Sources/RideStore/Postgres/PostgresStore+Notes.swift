import Foundation
import PostgresNIO

extension PostgresStore {
    /// One CALL (`rb_record_note_7`, BoundedRideNotes; `rb_record_note_5`'s steps and the
    /// note's limits): checks, stages the event (and,
    /// with a key, stores its answer), commits, sequences and answers with the event and its id
    /// (a transaction of four to five statements, the sequencing run and a read-back before).
    /// A keyed retry answers its first event and writes nothing.
    public func recordRideNote(_ note: RideNote, idempotency key: IdempotencyScope?) async throws -> KeyedRideNoteRecording {
        try await roundTrips.operation("note") {
            let states = note.states.map(\.rawValue).sorted()
            let now = Date.storeNow
            let answer = try await callKeyedNote(key) {
                try Prepared<TransitionSQL.RecordNote>(
                    key?.accountID, key?.key, note.idempotencyOperation, note.rideID, note.kind.rawValue, states, note.requiresEarlier?.rawValue,
                    note.actorID, note.at.wholeMillisecondsDown, note.detail, now, Self.eventChannel, note.perRideLimit,
                    note.unchangedAmong.map(\.rawValue).sorted(), note.answersOnePerRequest)
            }
            switch answer.outcome {
            case "ok": return KeyedRideNoteRecording(.recorded(try answer.recorded()))
            case "replay": return KeyedRideNoteRecording(.recorded(try answer.recorded()), isReplay: true)
            case "key-reused": throw StoreError.idempotencyKeyReused(key?.key ?? "")
            case "not-found": throw StoreError.notFound("ride \(note.rideID)")
            case "illegal": return KeyedRideNoteRecording(.wrongState(try stored(answer.info ?? "")))
            case "nothing-to-answer": return KeyedRideNoteRecording(.nothingToAnswer)
            case "limit-reached": return KeyedRideNoteRecording(.limitReached(note.perRideLimit ?? 0))
            case "unchanged": return KeyedRideNoteRecording(.unchanged)
            default: throw StoreError.unavailable("the note procedure answered '\(answer.outcome)'")
            }
        }
    }

    /// The CALL, asked once more when it lost a race on the key's primary key (the same key
    /// used at once for a note on another ride: the procedure rolled back whole), when it
    /// finds the winner's answer. Racing retries of one message queue on the ride's row lock
    /// instead, and the second finds the first's answer.
    private func callKeyedNote(_ key: IdempotencyScope?, _ statement: @escaping @Sendable () throws -> Prepared<TransitionSQL.RecordNote>)
        async throws -> SequencedEventAnswer {
        for attempt in 0..<2 {
            do {
                return try await callSequencedEvent("note", try statement())
            } catch let error as PSQLError where attempt == 0 && error.serverInfo?[.sqlState] == "23505" && key != nil {
                continue
            }
        }
        throw StoreError.unavailable("idempotency key \(key?.key ?? "") could not be settled")
    }
}
