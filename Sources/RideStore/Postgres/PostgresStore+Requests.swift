import Foundation
import PostgresNIO

extension PostgresStore {
    /// One statement (`rb_create_request_1`, TransitionFunctions) and the sequencing run.
    public func createRideRequest(_ new: NewRideRequest, passengerID: String, rule: BookingRule, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await roundTrips.operation("request") {
            try await createRideRequestInOneTrip(new, passengerID: passengerID, rule: rule, idempotency: idempotency)
        }
    }

    public func rideRequest(code: String) async throws -> RideRequestRecord? {
        // Newest first: a code is reused only after its holder ended (see SQLite).
        try await mapped { try await self.db.query("SELECT \(unescaped: PGColumns.request) FROM ride_request WHERE short_code = \(code) ORDER BY created_at DESC LIMIT 1", logger: self.logger).all(RideRequestRecord.init).first }
    }

    public func rideRequest(id: String) async throws -> RideRequestRecord? {
        try await mapped { try await self.db.query("SELECT \(unescaped: PGColumns.request) FROM ride_request WHERE id = \(id)", logger: self.logger).all(RideRequestRecord.init).first }
    }

    public func openRideRequests(limit: Int, after: String?) async throws -> [RideRequestRecord] {
        let after = after ?? ""
        return try await mapped {
            try await self.db.rows(Prepared<ReadSQL.OpenRideRequests>(after, limit), logger: self.logger, RideRequestRecord.init(row:))
        }
    }

    public func rideRequests(passengerID: String, limit: Int, after: String?) async throws -> [RideRequestRecord] {
        let after = after ?? ""
        return try await mapped {
            try await self.db.query("""
                SELECT \(unescaped: PGColumns.request) FROM ride_request WHERE passenger_id = \(passengerID)
                AND (\(after) = '' OR (created_at, id) > (SELECT created_at, id FROM ride_request WHERE id = \(after)))
                ORDER BY created_at, id LIMIT \(limit)
                """, logger: self.logger).all(RideRequestRecord.init)
        }
    }

    /// One statement (`rb_cancel_request_1`) and the sequencing run.
    public func cancelRideRequest(id: String, by actorID: String, reason: String?, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await roundTrips.operation("cancel-request") {
            try await cancelRideRequestInOneTrip(id: id, by: actorID, reason: reason, idempotency: idempotency)
        }
    }

    /// Stages the event; `sequenceEvents()` gives it its id once this transaction commits.
    /// The caller holds the request's or ride's row lock, so the per-request sequence (counted
    /// over sequenced and staged events) cannot race.
    func appendEvent(_ conn: CountedConnection, requestID: String, rideID: String?, kind: RideEventKind = .stateChanged, state: RideState,
                     actor: String, at: Date, detail: String?) async throws {
        try await conn.run(Prepared<EventSQL.Stage>(requestID, rideID, kind.rawValue, state.rawValue, actor, at, detail), logger: self.logger)
    }
}
