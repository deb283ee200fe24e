import Foundation
import PostgresNIO

extension PostgresStore {
    /// One CALL (`rb_record_note_4`, TransitionProcedures.v4): checks, stages the event, commits,
    /// sequences and answers with the event and its id (a transaction of four to five statements,
    /// the sequencing run and a read-back before).
    public func recordRideNote(_ note: RideNote) async throws -> RideNoteRecording {
        try await roundTrips.operation("note") {
            let at = Date(timeIntervalSince1970: (note.at.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
            let states = note.states.map(\.rawValue).sorted()
            let answer = try await mapped {
                try await self.db.rows(Prepared<TransitionSQL.RecordNote>(note.rideID, note.kind.rawValue, states, note.requiresEarlier?.rawValue,
                                                                         note.actorID, at, note.detail, Self.eventChannel),
                                       logger: self.logger, SequencedEventAnswer.init(row:)).first
            }
            guard let answer else { throw StoreError.unavailable("the note procedure answered nothing") }
            switch answer.outcome {
            case "ok":
                // Sequenced in the CALL: this server's event hubs are told as after `sequenced`.
                commits.announce(.eventsAppended)
                return .recorded(try answer.recorded())
            case "not-found": throw StoreError.notFound("ride \(note.rideID)")
            case "illegal": return .wrongState(try stored(answer.info ?? ""))
            case "nothing-to-answer": return .nothingToAnswer
            default: throw StoreError.unavailable("the note procedure answered '\(answer.outcome)'")
            }
        }
    }
}
