import Foundation
import PostgresNIO

extension PostgresStore {
    /// One CALL (`rb_record_note_3`, TransitionProcedures: checks, stages the event and commits
    /// before answering), the sequencing run, and the event read back with its id: 3 round trips
    /// (a transaction of four to five statements before).
    public func recordRideNote(_ note: RideNote) async throws -> RideNoteRecording {
        try await roundTrips.operation("note") {
            let at = Date(timeIntervalSince1970: (note.at.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
            let kind = note.kind.rawValue
            let states = note.states.map(\.rawValue).sorted()
            let (outcome, info) = try await mapped {
                try await self.db.rows(Prepared<TransitionSQL.RecordNote>(note.rideID, kind, states, note.requiresEarlier?.rawValue, note.actorID, at, note.detail),
                                       logger: self.logger) { try $0.decode((String, String?).self) }.first ?? ("", nil)
            }
            switch outcome {
            case "ok":
                // Only a staged event needs the sequencing run; a refusal wrote nothing.
                try await sequenced {}
                return .recorded(try await eventJustWritten(requestID: info ?? "", kind: kind))
            case "not-found": throw StoreError.notFound("ride \(note.rideID)")
            case "illegal": return .wrongState(try stored(info ?? ""))
            case "nothing-to-answer": return .nothingToAnswer
            default: throw StoreError.unavailable("the note procedure answered '\(outcome)'")
            }
        }
    }
}
