import Foundation
import GRDB

extension SQLiteStore {
    public func recordRideNote(_ note: RideNote) async throws -> RideNoteRecording {
        let at = Date(timeIntervalSince1970: (note.at.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        return try await write { db in
            guard let ride = try RideRecord.fetchOne(db, key: note.rideID) else { throw StoreError.notFound("ride \(note.rideID)") }
            guard note.states.contains(ride.state) else { return .wrongState(ride.state) }
            if let after = note.requiresEarlier {
                let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM rideEvent WHERE rideID = ? AND kind = ?"),
                                             arguments: [note.rideID, after]) ?? 0
                guard count > 0 else { return .nothingToAnswer }
            }
            try Self.appendEvent(db, requestID: ride.requestID, rideID: ride.id, kind: note.kind, state: ride.state,
                                 actor: note.actorID, at: at, detail: note.detail)
            guard let event = try RideEvent.fetchOne(db, key: db.lastInsertedRowID) else {
                throw StoreError.unavailable("the \(note.kind) event just written cannot be read back")
            }
            return .recorded(event)
        }
    }
}
