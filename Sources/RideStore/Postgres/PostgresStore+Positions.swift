import Foundation
import PostgresNIO

/// Each party's latest position during a ride's approach (see SQLiteStore+Positions; table
/// `ride_position`, deleted at the ride's end by `RidePositionsSchema`'s trigger).
extension PostgresStore {
    /// One statement: the ride's row is read `FOR SHARE`, so a transition (which locks it for
    /// its UPDATE) either waits for this write and then deletes the row with the ride's end, or
    /// goes first, and then this statement re-reads the ended state and writes nothing. A
    /// position is replaced a second later anyway, so it is not worth a commit round trip of
    /// its own (the transitions' `TransitionProcedures`): a write lost to a power cut right
    /// after its answer only leaves the previous position.
    public func recordPosition(rideID: String, party: TouchSide, _ position: RidePosition) async throws -> PositionRecording {
        let recordedAt = Date(milliseconds: position.recordedAt.milliseconds)
        let states = PositionRules.states.map(\.rawValue).sorted()
        let now = Date.storeNow
        return try await roundTrips.operation("position") {
            try await mapped {
                let rows = try await self.db.query("""
                    WITH r AS (SELECT id, state FROM ride WHERE id = \(rideID) FOR SHARE),
                    kept AS (
                        INSERT INTO ride_position (ride_id, party, latitude, longitude, accuracy_meters, course_degrees, recorded_at, received_at)
                        SELECT r.id, \(party.rawValue), \(position.latitude), \(position.longitude), \(position.accuracyMeters),
                               \(position.courseDegrees), \(recordedAt), \(now)
                        FROM r WHERE r.state = ANY(\(states))
                        ON CONFLICT (ride_id, party) DO UPDATE SET latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude,
                            accuracy_meters = EXCLUDED.accuracy_meters, course_degrees = EXCLUDED.course_degrees,
                            recorded_at = EXCLUDED.recorded_at, received_at = EXCLUDED.received_at
                        RETURNING 1)
                    SELECT r.state, (SELECT count(*) FROM kept) FROM r
                    """, logger: self.logger).all { row in try row.decode((String, Int64).self) }
                guard let (raw, kept) = rows.first else { throw StoreError.notFound("ride \(rideID)") }
                return kept == 1 ? .recorded : .wrongState(try stored(raw))
            }
        }
    }

    public func position(rideID: String, party: TouchSide) async throws -> RidePosition? {
        try await mapped {
            try await self.db.query("""
                SELECT latitude, longitude, accuracy_meters, course_degrees, recorded_at FROM ride_position
                WHERE ride_id = \(rideID) AND party = \(party.rawValue)
                """, logger: self.logger).all { row in
                let (latitude, longitude, accuracy, course, recordedAt) = try row.decode((Double, Double, Double, Double?, Date).self)
                return RidePosition(latitude: latitude, longitude: longitude, accuracyMeters: accuracy, courseDegrees: course,
                                    recordedAt: recordedAt.wholeMilliseconds)
            }.first
        }
    }
}
