import Foundation
import GRDB

extension SQLiteStore {
    public func createRideRequest(_ new: NewRideRequest, passengerID: String, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "create-request") {
                let request = try RideRequestRecord(
                    id: StoreID.make(), passengerID: passengerID, passengerName: new.passengerName,
                    pickup: new.pickup, dropoff: new.dropoff, accessibilityNotes: new.accessibilityNotes,
                    status: .open, createdAt: .storeNow, rideID: nil).inserted(db)
                try Self.appendEvent(db, requestID: request.id, rideID: nil, state: .requested, actor: passengerID, at: request.createdAt, detail: nil)
                return request
            }
        }
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

    public func cancelRideRequest(id: String, by actorID: String, idempotency: IdempotencyScope?) async throws -> RideRequestRecord {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "cancel-request:\(id)") {
                guard var request = try RideRequestRecord.fetchOne(db, key: id) else { throw StoreError.notFound("ride request \(id)") }
                guard request.status == .open else {
                    throw StoreError.illegalTransition(from: request.status == .accepted ? .accepted : .cancelled, to: .cancelled)
                }
                request.status = .cancelled
                try request.update(db)
                try Self.appendEvent(db, requestID: id, rideID: nil, state: .cancelled, actor: actorID, at: .storeNow, detail: nil)
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
