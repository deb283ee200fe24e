import Foundation
import GRDB
import RideRules

extension SQLiteStore {
    public func recordTouchProof(_ proof: VerifiedTouchProof, policy: TouchPolicy, idempotency: IdempotencyScope?) async throws -> TouchProofRecording {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "touch-proof:\(proof.rideID)") {
                guard var ride = try RideRecord.fetchOne(db, key: proof.rideID) else { throw StoreError.notFound("ride \(proof.rideID)") }
                guard ride.state == .arrived else { throw StoreError.illegalTransition(from: ride.state, to: .confirmed) }
                // The resend check in the write's transaction (issue 36: read in one, written in
                // another, 8 of 10 shifted copies sent at once were accepted): SQLite's one writer
                // runs this whole closure before the next proof's.
                let resent = try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM touchProof WHERE rideID = ? AND side = ? AND slot = ? AND observedUntilMs >= ?)
                    """, arguments: [proof.rideID, proof.side.rawValue, proof.slot, proof.resentSince.milliseconds]) ?? false
                if resent { throw StoreError.replayed(proof.resentRefusal) }
                let proofs = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM touchProof WHERE rideID = ?", arguments: [proof.rideID]) ?? 0
                guard proofs < RideHistoryLimits.touchProofsPerRide else { throw RideHistoryLimits.touchProofRefusal }
                // The unique key (ride, side, slot, observedAt) is the replay check; DO NOTHING
                // keeps the transaction usable so the refusal is an ordinary answer.
                try db.execute(sql: """
                    INSERT INTO touchProof (rideID, side, accountID, slot, uuid, major, minor, peakRssiDbm, samples, observedAtMs, receivedAtMs,
                                            observedFromMs, observedUntilMs)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """, arguments: [proof.rideID, proof.side.rawValue, proof.accountID, proof.slot, proof.uuid.uuidString, proof.major,
                                     proof.minor, proof.peakRssiDbm, proof.samples, proof.observedAt.milliseconds, proof.receivedAt.milliseconds,
                                     proof.observedFrom.milliseconds, proof.observedUntil.milliseconds])
                guard db.changesCount == 1 else {
                    throw StoreError.replayed("the \(proof.side.rawValue)'s proof for slot \(proof.slot) observed at \(proof.observedAt) was already used")
                }
                let counterpart = try Self.counterpartProofs(db, of: proof, policy: policy)
                guard counterpart == .simultaneous else {
                    if policy == .mutual {
                        // The other side's device learns when this side felt the touch.
                        try Self.appendEvent(db, requestID: ride.requestID, rideID: ride.id, kind: .touchObserved, state: .arrived,
                                             actor: proof.accountID,
                                             at: .storeNow, detail: proof.touchObserved.detail)
                    }
                    return TouchProofRecording(ride: ride, confirmed: false, notSimultaneous: counterpart == .notSimultaneous)
                }
                ride.state = .confirmed
                ride.stateChangedAt = .storeNow
                try ride.update(db)
                try Self.appendEvent(db, requestID: ride.requestID, rideID: ride.id, state: .confirmed, actor: proof.accountID,
                                     at: ride.stateChangedAt, detail: TouchProofRules.confirmationDetail(policy))
                return TouchProofRecording(ride: ride, confirmed: true)
            }
        }
    }

    /// Under the mutual policy: the counterpart's proofs received within the pairing window,
    /// and whether one of their observation windows is simultaneous with this proof's
    /// (RideRules' `TouchPairing.outcome`, as SQL on its bounds; RideStoreTests checks the two
    /// agree on random proofs). The passenger policy needs no counterpart: the passenger's
    /// proof is enough.
    private static func counterpartProofs(_ db: Database, of proof: VerifiedTouchProof, policy: TouchPolicy) throws -> CounterpartProofs {
        switch policy {
        case .passenger:
            return proof.side == .passenger ? .simultaneous : .none
        case .mutual:
            let received = TouchPairing.receiptBounds(around: proof.receivedAt)
            let window = TouchPairing.windowBounds(from: proof.observedFrom, until: proof.observedUntil)
            guard let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS proofs, COALESCE(SUM(observedFromMs <= ? AND observedUntilMs >= ?), 0) AS simultaneous
                FROM touchProof WHERE rideID = ? AND side = ? AND receivedAtMs BETWEEN ? AND ?
                """, arguments: [window.fromAtMost.milliseconds, window.untilAtLeast.milliseconds,
                                 proof.rideID, proof.side.counterpart.rawValue, received.earliest.milliseconds,
                                 received.latest.milliseconds]) else { return .none }
            let proofs: Int = row["proofs"]
            let simultaneous: Int = row["simultaneous"]
            return simultaneous > 0 ? .simultaneous : proofs > 0 ? .notSimultaneous : .none
        }
    }

    public func touchProofs(rideID: String) async throws -> [VerifiedTouchProof] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM touchProof WHERE rideID = ? ORDER BY receivedAtMs, id", arguments: [rideID]).map { row in
                let observedAt: Int64 = row["observedAtMs"]
                let observedFrom: Int64? = row["observedFromMs"]
                let observedUntil: Int64? = row["observedUntilMs"]
                return VerifiedTouchProof(rideID: row["rideID"], side: try stored(row["side"]), accountID: row["accountID"], slot: row["slot"],
                                   uuid: UUID(uuidString: row["uuid"]) ?? UUID(), major: row["major"], minor: row["minor"],
                                   peakRssiDbm: row["peakRssiDbm"], samples: row["samples"],
                                   observedAt: Date(milliseconds: row["observedAtMs"]), receivedAt: Date(milliseconds: row["receivedAtMs"]),
                                   observedFrom: Date(milliseconds: observedFrom ?? observedAt),
                                   observedUntil: Date(milliseconds: observedUntil ?? observedAt))
            }
        }
    }

    public func purgeLocations(finishedBefore cutoff: Date) async throws -> Int {
        try await write { db in
            let now = Date.storeNow.sqlValue
            try db.execute(sql: """
                UPDATE rideRequest SET pickup = '', dropoff = '', accessibilityNotes = NULL, passengerName = '', locationsPurgedAt = ?
                WHERE locationsPurgedAt IS NULL
                AND (status = 'cancelled' OR rideID IN (SELECT id FROM ride WHERE state IN ('completed', 'cancelled')))
                AND (SELECT MAX(at) FROM rideEvent WHERE rideEvent.requestID = rideRequest.id) < ?
                """, arguments: [now, cutoff.sqlValue])
            let purged = db.changesCount
            // Every copy goes in the same transaction (GDPR-style: erased everywhere it was
            // copied): free text in events (cancel reasons), the ride keys, and stored results
            // of keyed writes, which hold whole requests and, for an accept, the key.
            let justPurged = "SELECT id FROM rideRequest WHERE locationsPurgedAt = ?"
            try db.execute(sql: "UPDATE rideEvent SET detail = NULL WHERE detail IS NOT NULL AND requestID IN (\(justPurged))", arguments: [now])
            try db.execute(sql: "UPDATE ride SET key = X'' WHERE requestID IN (\(justPurged))", arguments: [now])
            try db.execute(sql: "DELETE FROM idempotency WHERE createdAt < ?", arguments: [cutoff.sqlValue])
            // Positions: the ride's end deletes them; this catches whatever outlived that.
            try db.execute(sql: """
                DELETE FROM ridePosition WHERE receivedAt < ?
                OR rideID IN (SELECT id FROM ride WHERE state IN ('confirmed', 'cancelled', 'completed'))
                """, arguments: [cutoff.sqlValue])
            return purged
        }
    }

    public func purgeIdempotencyResults(createdBefore cutoff: Date) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM idempotency WHERE createdAt < ?", arguments: [cutoff.sqlValue])
            return db.changesCount
        }
    }
}

extension TouchProofRules {
    /// The `confirmed` event's detail: which proofs did it.
    static func confirmationDetail(_ policy: TouchPolicy) -> String {
        switch policy {
        case .mutual: "touch proofs of passenger and driver"
        case .passenger: "touch proof of the passenger"
        }
    }
}

extension Date {
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
