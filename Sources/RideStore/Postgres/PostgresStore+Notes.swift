import Foundation
import PostgresNIO

extension PostgresStore {
    public func recordRideNote(_ note: RideNote) async throws -> RideNoteRecording {
        try await roundTrips.operation("note") {
            let at = Date(timeIntervalSince1970: (note.at.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
            let kind = note.kind.rawValue
            let rideID = note.rideID
            // The event is staged in the transaction and has its id once sequenced.
            let staged: NoteStaged = try await sequenced { try await transaction { conn in
                guard let ride = try await conn.query("SELECT \(unescaped: PGColumns.ride) FROM ride WHERE id = \(rideID) FOR UPDATE", logger: self.logger).all(RideRecord.init).first else {
                    throw StoreError.notFound("ride \(rideID)")
                }
                guard note.states.contains(ride.state) else { return .refused(.wrongState(ride.state)) }
                if let earlier = note.requiresEarlier?.rawValue {
                    // A staged (not yet sequenced) event counts too.
                    let count = try await conn.query("""
                        SELECT COUNT(*) FROM (SELECT id FROM ride_event WHERE ride_id = \(rideID) AND kind = \(earlier)
                            UNION ALL SELECT 0 FROM ride_event_pending WHERE ride_id = \(rideID) AND kind = \(earlier)) AS earlier
                        """, logger: self.logger).all { try $0.decode(Int64.self) }.first ?? 0
                    guard count > 0 else { return .refused(.nothingToAnswer) }
                }
                try await self.appendEvent(conn, requestID: ride.requestID, rideID: ride.id, kind: note.kind, state: ride.state,
                                           actor: note.actorID, at: at, detail: note.detail)
                return .appended(requestID: ride.requestID)
            } }
            let requestID: String
            switch staged {
            case .refused(let refusal): return refusal
            case .appended(let id): requestID = id
            }
            return .recorded(try await eventJustWritten(requestID: requestID, kind: kind))
        }
    }

    private enum NoteStaged: Sendable {
        case refused(RideNoteRecording)
        case appended(requestID: String)
    }
}
