import Foundation
import PostgresNIO

extension PostgresStore {
    public func createRideRequest(_ new: NewRideRequest, passengerID: String, rule: BookingRule, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await sequenced { try await idempotent(idempotency, operation: "create-request") { conn in
            // One booking at a time per passenger, on every server; other passengers' bookings
            // do not wait (the event order no longer needs a write lock: EventSequencing).
            try await conn.run(Prepared<WriteSQL.LockBooking>(AdvisoryLock.passengerBooking, passengerID), logger: self.logger)
            if rule == .oneRideAtATime, let existing = try await self.passengerHolding(conn, passengerID) {
                throw StoreError.busy(role: .passenger, existingID: existing)
            }
            let r = RideRequestRecord(id: StoreID.make(), passengerID: passengerID, passengerName: new.passengerName,
                                pickup: new.pickup, dropoff: new.dropoff, accessibilityNotes: new.accessibilityNotes,
                                status: .open, createdAt: .storeNow, rideID: nil, shortCode: try await self.freeShortCode(conn))
            try await conn.run(Prepared<WriteSQL.InsertRequest>(r.id, r.passengerID, r.passengerName, r.pickup, r.dropoff, r.accessibilityNotes,
                                                                 r.status.rawValue, r.createdAt, r.shortCode), logger: self.logger)
            try await self.appendEvent(conn, requestID: r.id, rideID: nil, state: .requested, actor: passengerID, at: r.createdAt, detail: nil)
            return r
        } }
    }

    public func rideRequest(code: String) async throws -> RideRequestRecord? {
        // Newest first: a code is reused only after its holder ended (see SQLite).
        try await mapped { try await self.client.query("SELECT \(unescaped: PGColumns.request) FROM ride_request WHERE short_code = \(code) ORDER BY created_at DESC LIMIT 1", logger: self.logger).all(RideRequestRecord.init).first }
    }

    /// The passenger's active ride's id, else their open request's id (one round trip).
    func passengerHolding(_ conn: PostgresConnection, _ passengerID: String) async throws -> String? {
        try await conn.rows(Prepared<WriteSQL.PassengerHolding>(passengerID), logger: logger) { try $0.decode(String?.self) }.first ?? nil
    }

    /// A code no open request or active ride holds. Each candidate is locked until this
    /// transaction ends, so two bookings never take the same code; a candidate another booking
    /// holds is skipped, not waited for (no lock order, no deadlock).
    func freeShortCode(_ conn: PostgresConnection) async throws -> String {
        for _ in 0..<64 {
            let candidate = ShortCode.random()
            let locked = try await conn.rows(Prepared<WriteSQL.TryLockShortCode>(AdvisoryLock.shortCode, candidate), logger: logger) {
                try $0.decode(Bool.self)
            }.first ?? false
            guard locked else { continue }
            let taken = try await conn.rows(Prepared<WriteSQL.ShortCodeTaken>(candidate), logger: logger) { _ in true }
            if taken.isEmpty { return candidate }
        }
        throw StoreError.unavailable("no free short ride code; too many active rides")
    }

    public func rideRequest(id: String) async throws -> RideRequestRecord? {
        try await mapped { try await self.client.query("SELECT \(unescaped: PGColumns.request) FROM ride_request WHERE id = \(id)", logger: self.logger).all(RideRequestRecord.init).first }
    }

    public func openRideRequests(limit: Int, after: String?) async throws -> [RideRequestRecord] {
        let after = after ?? ""
        return try await mapped {
            try await self.client.query("""
                SELECT \(unescaped: PGColumns.request) FROM ride_request WHERE status = 'open'
                AND (\(after) = '' OR (created_at, id) > (SELECT created_at, id FROM ride_request WHERE id = \(after)))
                ORDER BY created_at, id LIMIT \(limit)
                """, logger: self.logger).all(RideRequestRecord.init)
        }
    }

    public func rideRequests(passengerID: String, limit: Int, after: String?) async throws -> [RideRequestRecord] {
        let after = after ?? ""
        return try await mapped {
            try await self.client.query("""
                SELECT \(unescaped: PGColumns.request) FROM ride_request WHERE passenger_id = \(passengerID)
                AND (\(after) = '' OR (created_at, id) > (SELECT created_at, id FROM ride_request WHERE id = \(after)))
                ORDER BY created_at, id LIMIT \(limit)
                """, logger: self.logger).all(RideRequestRecord.init)
        }
    }

    public func cancelRideRequest(id: String, by actorID: String, reason: String?, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await sequenced { try await idempotent(idempotency, operation: "cancel-request:\(id)") { conn in
            guard var request = try await conn.query("SELECT \(unescaped: PGColumns.request) FROM ride_request WHERE id = \(id) FOR UPDATE", logger: self.logger).all(RideRequestRecord.init).first else {
                throw StoreError.notFound("ride request \(id)")
            }
            guard request.status == .open else {
                throw StoreError.illegalTransition(from: request.status == .accepted ? .accepted : .cancelled, to: .cancelled)
            }
            request.status = .cancelled
            try await conn.query("UPDATE ride_request SET status = 'cancelled' WHERE id = \(id)", logger: self.logger)
            try await self.appendEvent(conn, requestID: id, rideID: nil, state: .cancelled, actor: actorID, at: .storeNow, detail: reason)
            return request
        } }
    }

    /// Stages the event; `sequenceEvents()` gives it its id once this transaction commits.
    /// The caller holds the request's or ride's row lock, so the per-request sequence (counted
    /// over sequenced and staged events) cannot race.
    func appendEvent(_ conn: PostgresConnection, requestID: String, rideID: String?, kind: RideEventKind = .stateChanged, state: RideState,
                     actor: String, at: Date, detail: String?) async throws {
        try await conn.run(Prepared<EventSQL.Stage>(requestID, rideID, kind.rawValue, state.rawValue, actor, at, detail), logger: self.logger)
    }
}
