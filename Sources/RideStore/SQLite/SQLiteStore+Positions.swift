import Foundation
import GRDB

/// Each party's latest position during a ride's approach (table `ridePosition`, one row per
/// ride and party). The ride's end deletes them: a trigger on `ride.state` (migration
/// `ride-positions`) runs in whatever transaction ends the ride.
extension SQLiteStore {
    /// One write transaction: SQLite's single writer orders it before or after any transition,
    /// so a position never outlives the ride's end.
    public func recordPosition(rideID: String, party: TouchSide, _ position: RidePosition) async throws -> PositionRecording {
        let recordedAt = Date(milliseconds: position.recordedAt.milliseconds)
        return try await write { db in
            guard let raw = try String.fetchOne(db.cachedStatement(sql: "SELECT state FROM ride WHERE id = ?"), arguments: [rideID]) else {
                throw StoreError.notFound("ride \(rideID)")
            }
            guard let state = RideState(rawValue: raw) else { throw StoreError.invalid("unknown ride state '\(raw)' in database") }
            guard PositionRules.states.contains(state) else { return .wrongState(state) }
            try db.execute(sql: """
                INSERT INTO ridePosition (rideID, party, latitude, longitude, accuracyMeters, courseDegrees, recordedAt, receivedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (rideID, party) DO UPDATE SET latitude = excluded.latitude, longitude = excluded.longitude,
                    accuracyMeters = excluded.accuracyMeters, courseDegrees = excluded.courseDegrees,
                    recordedAt = excluded.recordedAt, receivedAt = excluded.receivedAt
                """, arguments: [rideID, party.rawValue, position.latitude, position.longitude, position.accuracyMeters,
                                 position.courseDegrees, recordedAt.sqlValue, Date.storeNow.sqlValue])
            return .recorded
        }
    }

    public func position(rideID: String, party: TouchSide) async throws -> RidePosition? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: """
                SELECT latitude, longitude, accuracyMeters, courseDegrees, recordedAt FROM ridePosition WHERE rideID = ? AND party = ?
                """), arguments: [rideID, party.rawValue]).map { row in
                let recordedAt: Double = row[4]
                return RidePosition(latitude: row[0], longitude: row[1], accuracyMeters: row[2], courseDegrees: row[3],
                                    recordedAt: Date(milliseconds: Int64((recordedAt * 1000).rounded())))
            }
        }
    }
}
