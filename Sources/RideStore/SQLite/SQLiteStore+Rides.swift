import Foundation
import GRDB

extension SQLiteStore {
    public func createRideRequest(_ new: NewRideRequest, passengerID: String, idempotency: IdempotencyKey?) async throws -> RideRequest {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "create-request") {
                let request = RideRequest(
                    id: StoreID.make(), passengerID: passengerID, passengerName: new.passengerName,
                    pickup: new.pickup, dropoff: new.dropoff, accessibilityNotes: new.accessibilityNotes,
                    status: .open, createdAt: .storeNow, rideID: nil)
                return try request.inserted(db)
            }
        }
    }

    public func rideRequest(id: String) async throws -> RideRequest? {
        try await read { db in try RideRequest.fetchOne(db, key: id) }
    }

    public func openRideRequests(limit: Int) async throws -> [RideRequest] {
        try await read { db in
            try RideRequest.filter(Column("status") == RideRequest.Status.open)
                .order(Column("createdAt"), Column("id")).limit(limit).fetchAll(db)
        }
    }

    public func rideRequests(passengerID: String) async throws -> [RideRequest] {
        try await read { db in
            try RideRequest.filter(Column("passengerID") == passengerID)
                .order(Column("createdAt"), Column("id")).fetchAll(db)
        }
    }

    public func cancelRideRequest(id: String, by actorID: String, idempotency: IdempotencyKey?) async throws -> RideRequest {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "cancel-request:\(id)") {
                guard var request = try RideRequest.fetchOne(db, key: id) else { throw StoreError.notFound("ride request \(id)") }
                guard request.status == .open else {
                    throw StoreError.illegalTransition(from: request.status == .accepted ? .accepted : .cancelled, to: .cancelled)
                }
                request.status = .cancelled
                try request.update(db)
                return request
            }
        }
    }

    public func accept(requestID: String, driverID: String, rideKey: Data, idempotency: IdempotencyKey?) async throws -> Ride {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "accept:\(requestID)") {
                let rideID = StoreID.make()
                // The conditional update is the race arbiter: only one writer sees status = 'open'.
                try db.execute(sql: "UPDATE rideRequest SET status = 'accepted', rideID = ? WHERE id = ? AND status = 'open'",
                               arguments: [rideID, requestID])
                guard db.changesCount == 1 else {
                    guard let request = try RideRequest.fetchOne(db, key: requestID) else {
                        throw StoreError.notFound("ride request \(requestID)")
                    }
                    if request.status == .accepted { throw StoreError.alreadyTaken(requestID) }
                    throw StoreError.illegalTransition(from: .cancelled, to: .accepted)
                }
                guard let request = try RideRequest.fetchOne(db, key: requestID) else { throw StoreError.notFound("ride request \(requestID)") }
                let now = Date.storeNow
                let ride = try Ride(id: rideID, requestID: requestID, passengerID: request.passengerID, driverID: driverID,
                                    state: .accepted, key: rideKey, createdAt: now, stateChangedAt: now).inserted(db)
                try Self.appendEvent(db, ride: ride, state: .requested, actor: request.passengerID, at: request.createdAt, detail: nil)
                try Self.appendEvent(db, ride: ride, state: .accepted, actor: driverID, at: now, detail: nil)
                return ride
            }
        }
    }

    public func transition(rideID: String, to state: RideState, by actorID: String, detail: String?, idempotency: IdempotencyKey?) async throws -> Ride {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "\(state.rawValue):\(rideID)") {
                guard var ride = try Ride.fetchOne(db, key: rideID) else { throw StoreError.notFound("ride \(rideID)") }
                guard ride.state.canMove(to: state) else { throw StoreError.illegalTransition(from: ride.state, to: state) }
                ride.state = state
                ride.stateChangedAt = .storeNow
                try ride.update(db)
                try Self.appendEvent(db, ride: ride, state: state, actor: actorID, at: ride.stateChangedAt, detail: detail)
                return ride
            }
        }
    }

    public func ride(id: String) async throws -> Ride? {
        try await read { db in try Ride.fetchOne(db, key: id) }
    }

    public func rides(_ filter: RideFilter) async throws -> [Ride] {
        try await read { db in
            var query = Ride.all()
            switch filter.scope {
            case .active:
                query = query.filter([RideState.completed, .cancelled].contains(Column("state")) == false)
            case .participant(let accountID):
                query = query.filter(Column("passengerID") == accountID || Column("driverID") == accountID)
            }
            if let after = filter.after {
                guard let anchor = try Ride.fetchOne(db, key: after) else { return [] }
                query = query.filter(Column("createdAt") > anchor.createdAt.sqlValue
                    || (Column("createdAt") == anchor.createdAt.sqlValue && Column("id") > anchor.id))
            }
            return try query.order(Column("createdAt"), Column("id")).limit(filter.limit).fetchAll(db)
        }
    }

    public func rideCounts() async throws -> [RideState: Int] {
        try await read { db in
            var counts = Dictionary(uniqueKeysWithValues: RideState.allCases.map { ($0, 0) })
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM ride GROUP BY state") {
                if let state = RideState(rawValue: row["state"]) { counts[state] = row["n"] }
            }
            counts[.requested] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rideRequest WHERE status = 'open'") ?? 0
            return counts
        }
    }

    static func appendEvent(_ db: Database, ride: Ride, state: RideState, actor: String, at: Date, detail: String?) throws {
        let last = try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM rideEvent WHERE rideID = ?", arguments: [ride.id]) ?? 0
        try db.execute(sql: "INSERT INTO rideEvent (rideID, sequence, state, actorID, at, detail) VALUES (?, ?, ?, ?, ?, ?)",
                       arguments: [ride.id, last + 1, state, actor, at.sqlValue, detail])
    }

    /// Runs `body` once per idempotency key: a retry returns the stored first result and
    /// writes nothing. The result is stored in the caller's transaction, so it commits
    /// (or not) together with the write it describes.
    static func idempotent<T: Codable>(_ db: Database, _ key: IdempotencyKey?, operation: String, _ body: () throws -> T) throws -> T {
        guard let key else { return try body() }
        if let row = try Row.fetchOne(db, sql: "SELECT operation, result FROM idempotency WHERE accountID = ? AND key = ?",
                                      arguments: [key.accountID, key.key]) {
            guard row["operation"] == operation else { throw StoreError.idempotencyKeyReused(key.key) }
            return try JSONDecoder().decode(T.self, from: row["result"] as Data)
        }
        let result = try body()
        try db.execute(sql: "INSERT INTO idempotency (accountID, key, operation, result, createdAt) VALUES (?, ?, ?, ?, ?)",
                       arguments: [key.accountID, key.key, operation, try JSONEncoder().encode(result), Date.storeNow.sqlValue])
        return result
    }
}
