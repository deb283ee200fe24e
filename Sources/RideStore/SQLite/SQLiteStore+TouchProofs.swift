import Foundation
import GRDB

extension SQLiteStore {
    public func recordTouchProof(_ proof: VerifiedTouchProof, policy: TouchPolicy, idempotency: IdempotencyScope?) async throws -> TouchProofRecording {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "touch-proof:\(proof.rideID)") {
                guard var ride = try RideRecord.fetchOne(db, key: proof.rideID) else { throw StoreError.notFound("ride \(proof.rideID)") }
                guard ride.state == .arrived else { throw StoreError.illegalTransition(from: ride.state, to: .confirmed) }
                // The unique key (ride, side, slot, observedAt) is the replay check; DO NOTHING
                // keeps the transaction usable so the refusal is an ordinary answer.
                try db.execute(sql: """
                    INSERT INTO touchProof (rideID, side, accountID, slot, uuid, major, minor, peakRssiDbm, samples, observedAtMs, receivedAtMs)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """, arguments: [proof.rideID, proof.side.rawValue, proof.accountID, proof.slot, proof.uuid.uuidString, proof.major,
                                     proof.minor, proof.peakRssiDbm, proof.samples, proof.observedAt.milliseconds, proof.receivedAt.milliseconds])
                guard db.changesCount == 1 else {
                    throw StoreError.replayed("the \(proof.side.rawValue)'s proof for slot \(proof.slot) observed at \(proof.observedAt) was already used")
                }
                guard try Self.policyMet(db, by: proof, policy: policy) else { return TouchProofRecording(ride: ride, confirmed: false) }
                ride.state = .confirmed
                ride.stateChangedAt = .storeNow
                try ride.update(db)
                try Self.appendEvent(db, requestID: ride.requestID, rideID: ride.id, state: .confirmed, actor: proof.accountID,
                                     at: ride.stateChangedAt, detail: TouchProofRules.confirmationDetail(policy))
                return TouchProofRecording(ride: ride, confirmed: true)
            }
        }
    }

    private static func policyMet(_ db: Database, by proof: VerifiedTouchProof, policy: TouchPolicy) throws -> Bool {
        switch policy {
        case .passenger:
            return proof.side == .passenger
        case .mutual:
            let window = Int64(TouchProofRules.pairingWindow * 1000)
            let received = proof.receivedAt.milliseconds
            return try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM touchProof WHERE rideID = ? AND side = ? AND receivedAtMs BETWEEN ? AND ?)
                """, arguments: [proof.rideID, proof.side.counterpart.rawValue, received - window, received + window]) ?? false
        }
    }

    public func touchProofs(rideID: String) async throws -> [VerifiedTouchProof] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM touchProof WHERE rideID = ? ORDER BY receivedAtMs, id", arguments: [rideID]).map { row in
                VerifiedTouchProof(rideID: row["rideID"], side: try stored(row["side"]), accountID: row["accountID"], slot: row["slot"],
                                   uuid: UUID(uuidString: row["uuid"]) ?? UUID(), major: row["major"], minor: row["minor"],
                                   peakRssiDbm: row["peakRssiDbm"], samples: row["samples"],
                                   observedAt: Date(milliseconds: row["observedAtMs"]), receivedAt: Date(milliseconds: row["receivedAtMs"]))
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
