import Foundation
import PostgresNIO

extension PostgresStore {
    /// One CALL (`rb_record_note_4`, TransitionProcedures.v4): checks, stages the event, commits,
    /// sequences and answers with the event and its id (a transaction of four to five statements,
    /// the sequencing run and a read-back before).
    public func recordRideNote(_ note: RideNote) async throws -> RideNoteRecording {
        try await roundTrips.operation("note") {
            let states = note.states.map(\.rawValue).sorted()
            let answer = try await callSequencedEvent("note", try Prepared<TransitionSQL.RecordNote>(
                note.rideID, note.kind.rawValue, states, note.requiresEarlier?.rawValue, note.actorID, note.at.wholeMillisecondsDown,
                note.detail, Self.eventChannel))
            switch answer.outcome {
            case "ok": return .recorded(try answer.recorded())
            case "not-found": throw StoreError.notFound("ride \(note.rideID)")
            case "illegal": return .wrongState(try stored(answer.info ?? ""))
            case "nothing-to-answer": return .nothingToAnswer
            default: throw StoreError.unavailable("the note procedure answered '\(answer.outcome)'")
            }
        }
    }
}
