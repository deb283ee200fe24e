import Foundation
import PostgresNIO

extension PostgresStore {
    /// One statement (`rb_touch_proof_1`, TransitionFunctions) and the sequencing run.
    public func recordTouchProof(_ proof: VerifiedTouchProof, policy: TouchPolicy, idempotency: IdempotencyScope?) async throws -> TouchProofRecording {
        try await roundTrips.operation("touch-proof") {
            try await recordTouchProofInOneTrip(proof, policy: policy, idempotency: idempotency)
        }
    }

    public func touchProofs(rideID: String) async throws -> [VerifiedTouchProof] {
        try await mapped {
            try await self.db.query("""
                SELECT ride_id, side, account_id, slot, uuid, major, minor, peak_rssi_dbm, samples, observed_at, received_at,
                       observed_from, observed_until
                FROM touch_proof WHERE ride_id = \(rideID) ORDER BY received_at, id
                """, logger: self.logger).all { row in
                let (ride, side, account, slot, uuid, major, minor, rssi, samples, observed, received, from, until) =
                    try row.decode((String, String, String, Int64, String, Int, Int, Double, Int, Date, Date, Date, Date).self)
                return VerifiedTouchProof(rideID: ride, side: try stored(side), accountID: account, slot: slot, uuid: UUID(uuidString: uuid) ?? UUID(),
                                          major: major, minor: minor, peakRssiDbm: rssi, samples: samples,
                                          observedAt: observed.wholeMilliseconds, receivedAt: received.wholeMilliseconds,
                                          observedFrom: from.wholeMilliseconds, observedUntil: until.wholeMilliseconds)
            }
        }
    }

    public func purgeLocations(finishedBefore cutoff: Date) async throws -> Int {
        try await transaction { conn in
            // Every copy goes in the same statement (see the SQLite store): event details
            // (cancel reasons), ride keys, and stored results of keyed writes.
            let purged = try await conn.query("""
                WITH purged AS (
                    UPDATE ride_request q SET pickup = '', dropoff = '', accessibility_notes = NULL, passenger_name = '', locations_purged_at = \(Date.storeNow)
                    WHERE q.locations_purged_at IS NULL
                    AND (q.status = 'cancelled' OR q.ride_id IN (SELECT id FROM ride WHERE state IN ('completed', 'cancelled')))
                    AND (SELECT MAX(at) FROM ride_event e WHERE e.request_id = q.id) < \(cutoff)
                    RETURNING q.id),
                details AS (UPDATE ride_event SET detail = NULL WHERE detail IS NOT NULL AND request_id IN (SELECT id FROM purged)),
                keys AS (UPDATE ride SET key = ''::bytea WHERE request_id IN (SELECT id FROM purged))
                SELECT id FROM purged
                """, logger: self.logger).all { $0 }.count
            try await conn.query("DELETE FROM idempotency WHERE created_at < \(cutoff)", logger: self.logger)
            // Positions: the ride's end deletes them; this catches whatever outlived that.
            try await conn.query("""
                DELETE FROM ride_position WHERE received_at < \(cutoff)
                OR ride_id IN (SELECT id FROM ride WHERE state IN ('confirmed', 'cancelled', 'completed'))
                """, logger: self.logger)
            return purged
        }
    }

    public func purgeIdempotencyResults(createdBefore cutoff: Date) async throws -> Int {
        try await transaction { conn in
            try await conn.query("DELETE FROM idempotency WHERE created_at < \(cutoff) RETURNING 1", logger: self.logger).all { $0 }.count
        }
    }
}
