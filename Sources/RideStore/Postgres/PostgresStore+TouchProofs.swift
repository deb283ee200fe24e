import Foundation
import PostgresNIO

extension PostgresStore {
    public func recordTouchProof(_ proof: VerifiedTouchProof, policy: TouchPolicy, idempotency: IdempotencyScope?) async throws -> TouchProofRecording {
        try await sequenced { try await idempotent(idempotency, operation: "touch-proof:\(proof.rideID)") { conn in
            // FOR UPDATE serialises one ride's proofs: of two sides' proofs arriving together
            // (possibly on two servers), the second sees the first and confirms.
            guard var ride = try await conn.query("SELECT \(unescaped: PGColumns.ride) FROM ride WHERE id = \(proof.rideID) FOR UPDATE", logger: self.logger).all(RideRecord.init).first else {
                throw StoreError.notFound("ride \(proof.rideID)")
            }
            guard ride.state == .arrived else { throw StoreError.illegalTransition(from: ride.state, to: .confirmed) }
            // DO NOTHING rather than a unique violation, which would abort the transaction
            // (and look like an idempotency race to `idempotent`).
            let inserted = try await conn.query("""
                INSERT INTO touch_proof (ride_id, side, account_id, slot, uuid, major, minor, peak_rssi_dbm, samples, observed_at, received_at,
                                         observed_from, observed_until)
                VALUES (\(proof.rideID), \(proof.side.rawValue), \(proof.accountID), \(proof.slot), \(proof.uuid.uuidString), \(proof.major),
                        \(proof.minor), \(proof.peakRssiDbm), \(proof.samples), \(proof.observedAt), \(proof.receivedAt),
                        \(proof.observedFrom), \(proof.observedUntil))
                ON CONFLICT DO NOTHING RETURNING id
                """, logger: self.logger).all { $0 }
            guard inserted.count == 1 else {
                throw StoreError.replayed("the \(proof.side.rawValue)'s proof for slot \(proof.slot) observed at \(proof.observedAt) was already used")
            }
            let counterpart = try await self.counterpartProofs(conn, of: proof, policy: policy)
            guard counterpart == .simultaneous else {
                if policy == .mutual {
                    // The other side's device learns when this side felt the touch.
                    try await self.appendEvent(conn, requestID: ride.requestID, rideID: ride.id, kind: .touchObserved, state: .arrived,
                                             actor: proof.accountID,
                                               at: .storeNow, detail: proof.touchObserved.detail)
                }
                return TouchProofRecording(ride: ride, confirmed: false, notSimultaneous: counterpart == .notSimultaneous)
            }
            ride.state = .confirmed
            ride.stateChangedAt = .storeNow
            try await conn.query("UPDATE ride SET state = 'confirmed', state_changed_at = \(ride.stateChangedAt) WHERE id = \(ride.id)", logger: self.logger)
            try await self.appendEvent(conn, requestID: ride.requestID, rideID: ride.id, state: .confirmed, actor: proof.accountID,
                                       at: ride.stateChangedAt, detail: TouchProofRules.confirmationDetail(policy))
            return TouchProofRecording(ride: ride, confirmed: true)
        } }
    }

    /// See the SQLite store's `counterpartProofs`.
    private func counterpartProofs(_ conn: PostgresConnection, of proof: VerifiedTouchProof, policy: TouchPolicy) async throws -> CounterpartProofs {
        switch policy {
        case .passenger:
            return proof.side == .passenger ? .simultaneous : .none
        case .mutual:
            let earliest = proof.receivedAt.addingTimeInterval(-TouchProofRules.pairingWindow)
            let latest = proof.receivedAt.addingTimeInterval(TouchProofRules.pairingWindow)
            let fromBound = proof.observedUntil.addingTimeInterval(TouchProofRules.simultaneity)
            let untilBound = proof.observedFrom.addingTimeInterval(-TouchProofRules.simultaneity)
            let rows = try await conn.query("""
                SELECT COUNT(*)::bigint, COUNT(*) FILTER (WHERE observed_from <= \(fromBound) AND observed_until >= \(untilBound))::bigint
                FROM touch_proof WHERE ride_id = \(proof.rideID) AND side = \(proof.side.counterpart.rawValue)
                AND received_at BETWEEN \(earliest) AND \(latest)
                """, logger: self.logger).all { try $0.decode((Int64, Int64).self) }
            guard let (proofs, simultaneous) = rows.first else { return .none }
            return simultaneous > 0 ? .simultaneous : proofs > 0 ? .notSimultaneous : .none
        }
    }

    public func touchProofs(rideID: String) async throws -> [VerifiedTouchProof] {
        try await mapped {
            try await self.client.query("""
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
            return purged
        }
    }

    public func purgeIdempotencyResults(createdBefore cutoff: Date) async throws -> Int {
        try await transaction { conn in
            try await conn.query("DELETE FROM idempotency WHERE created_at < \(cutoff) RETURNING 1", logger: self.logger).all { $0 }.count
        }
    }
}
