import Foundation
import GRDB

extension SQLiteStore {
    public func createRideRequest(_ new: NewRideRequest, passengerID: String, rule: BookingRule, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "create-request") {
                if rule == .oneRideAtATime, let existing = try Self.passengerHolding(db, passengerID) {
                    throw StoreError.busy(role: .passenger, existingID: existing)
                }
                let request = try RideRequestRecord(
                    id: StoreID.make(), passengerID: passengerID, passengerName: new.passengerName,
                    pickup: new.pickup, dropoff: new.dropoff, accessibilityNotes: new.accessibilityNotes,
                    status: .open, createdAt: .storeNow, rideID: nil, shortCode: try Self.freeShortCode(db)).inserted(db)
                try Self.appendEvent(db, requestID: request.id, rideID: nil, state: .requested, actor: passengerID, at: request.createdAt, detail: nil)
                return request
            }
        }
    }

    public func rideRequest(code: String) async throws -> RideRequestRecord? {
        try await read { db in
            // Newest first: a code is reused only after its holder ended, so the newest holder
            // is the active one whenever there is an active one.
            try RideRequestRecord.filter(Column("shortCode") == code).order(Column("createdAt").desc).fetchOne(db)
        }
    }

    /// The passenger's active ride's id, else their open request's id.
    static func passengerHolding(_ db: Database, _ passengerID: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT id FROM ride WHERE passengerID = ? AND state NOT IN ('completed', 'cancelled') LIMIT 1",
                            arguments: [passengerID])
            ?? String.fetchOne(db, sql: "SELECT id FROM rideRequest WHERE passengerID = ? AND status = 'open' LIMIT 1", arguments: [passengerID])
    }

    /// A code no open request or active ride holds. Writes are serialised, so the check holds
    /// until the insert commits.
    static func freeShortCode(_ db: Database) throws -> String {
        for _ in 0..<64 {
            let candidate = ShortCode.random()
            let taken = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM rideRequest r LEFT JOIN ride ON ride.id = r.rideID
                WHERE r.shortCode = ? AND (r.status = 'open' OR ride.state IN ('accepted', 'arrived', 'confirmed')))
                """, arguments: [candidate]) ?? false
            if !taken { return candidate }
        }
        throw StoreError.unavailable("no free short ride code; too many active rides")
    }

    public func rideRequest(id: String) async throws -> RideRequestRecord? {
        try await read { db in try RideRequestRecord.fetchOne(db, key: id) }
    }

    public func openRideRequests(limit: Int, after: String?) async throws -> [RideRequestRecord] {
        try await read { db in
            try Self.requestPage(db, RideRequestRecord.filter(Column("status") == RideRequestStatus.open), limit: limit, after: after)
        }
    }

    public func rideRequests(passengerID: String, limit: Int, after: String?) async throws -> [RideRequestRecord] {
        try await read { db in
            try Self.requestPage(db, RideRequestRecord.filter(Column("passengerID") == passengerID), limit: limit, after: after)
        }
    }

    private static func requestPage(_ db: Database, _ query: QueryInterfaceRequest<RideRequestRecord>, limit: Int, after: String?) throws -> [RideRequestRecord] {
        var query = query
        if let after {
            guard let anchor = try RideRequestRecord.fetchOne(db, key: after) else { return [] }
            // A row value, so the (createdAt, id) index can seek to the anchor.
            query = query.filter(sql: "(createdAt, id) > (?, ?)", arguments: [anchor.createdAt.sqlValue, anchor.id])
        }
        return try query.order(Column("createdAt"), Column("id")).limit(limit).fetchAll(db)
    }

    public func cancelRideRequest(id: String, by actorID: String, reason: String?, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "cancel-request:\(id)") {
                guard var request = try RideRequestRecord.fetchOne(db, key: id) else { throw StoreError.notFound("ride request \(id)") }
                guard request.status == .open else {
                    throw StoreError.illegalTransition(from: request.status == .accepted ? .accepted : .cancelled, to: .cancelled)
                }
                request.status = .cancelled
                try request.update(db)
                try Self.appendEvent(db, requestID: id, rideID: nil, state: .cancelled, actor: actorID, at: .storeNow, detail: reason)
                return request
            }
        }
    }

    static func appendEvent(_ db: Database, requestID: String, rideID: String?, kind: RideEventKind = .stateChanged, state: RideState,
                            actor: String, at: Date, detail: String?) throws {
        let last = try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(sequence) FROM rideEvent WHERE requestID = ?"), arguments: [requestID]) ?? 0
        try db.cachedStatement(sql: "INSERT INTO rideEvent (requestID, rideID, sequence, kind, state, actorID, at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
            .execute(arguments: [requestID, rideID, last + 1, kind, state, actor, at.sqlValue, detail])
    }
}
