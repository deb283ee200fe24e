import Foundation
import GRDB
import RideRules

extension SQLiteStore {
    public func accept(requestID: String, driverID: String, rideKey: Data, rule: BookingRule, assignedBy: String?,
                       idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "accept:\(requestID)") {
                if let held = try RideRecord.filter(Column("requestID") == requestID && Column("driverID") == driverID).fetchOne(db),
                   held.state.isActive {
                    return held
                }
                if rule == .oneRideAtATime,
                   let busy = try String.fetchOne(db, sql: "SELECT id FROM ride WHERE driverID = ? AND state IN (\(RideState.driverOccupyingSQLList)) LIMIT 1",
                                                  arguments: [driverID]) {
                    throw StoreError.busy(role: .driver, existingID: busy)
                }
                let rideID = StoreID.make()
                // The conditional update is the race arbiter: only one writer sees status = 'open'.
                try db.execute(sql: "UPDATE rideRequest SET status = 'accepted', rideID = ? WHERE id = ? AND status = 'open'",
                               arguments: [rideID, requestID])
                guard db.changesCount == 1 else {
                    guard let request = try RideRequestRecord.fetchOne(db, key: requestID) else {
                        throw StoreError.notFound("ride request \(requestID)")
                    }
                    if request.status == .accepted { throw StoreError.alreadyTaken(requestID) }
                    throw StoreError.illegalTransition(from: .cancelled, to: .accepted)
                }
                guard let request = try RideRequestRecord.fetchOne(db, key: requestID) else { throw StoreError.notFound("ride request \(requestID)") }
                let now = Date.storeNow
                let ride = try RideRecord(id: rideID, requestID: requestID, passengerID: request.passengerID, driverID: driverID,
                                    state: .accepted, key: rideKey, createdAt: now, stateChangedAt: now,
                                    shortCode: request.shortCode).inserted(db)
                try Self.appendEvent(db, requestID: requestID, rideID: ride.id, state: .accepted, actor: assignedBy ?? driverID, at: now,
                                     detail: assignedBy == nil ? nil : "assigned by a dispatcher")
                return ride
            }
        }
    }

    public func transition(rideID: String, to state: RideState, by actorID: String, detail: String?, idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await write { db in
            try Self.idempotent(db, idempotency, operation: "\(state.rawValue):\(rideID)") {
                guard var ride = try RideRecord.fetchOne(db, key: rideID) else { throw StoreError.notFound("ride \(rideID)") }
                guard ride.state.canMove(to: state) else { throw StoreError.illegalTransition(from: ride.state, to: state) }
                ride.state = state
                ride.stateChangedAt = .storeNow
                try ride.update(db)
                try Self.appendEvent(db, requestID: ride.requestID, rideID: ride.id, state: state, actor: actorID, at: ride.stateChangedAt, detail: detail)
                return ride
            }
        }
    }

    public func ride(id: String) async throws -> RideRecord? {
        try await read { db in try RideRecord.fetchOne(db, key: id) }
    }

    /// One statement for ride and people, so a listing page costs one query, not 1 + 2n.
    // Columns listed and read by position: GRDB's by-name lookups (each a case-insensitive scan
    // of the column names) and Codable decoding were a quarter of a dispatcher list request.
    private static let detailSelect = """
        SELECT ride.id, ride.requestID, ride.passengerID, ride.driverID, ride.state, ride.key, ride.createdAt,
               ride.stateChangedAt, ride.shortCode, ride.etaMinutes, ride.etaGivenAt,
               p.displayName, d.displayName, d.vehicle, q.pickup, q.dropoff, q.accessibilityNotes,
               d.vehicleColour, d.vehicleMake, d.vehicleModel, d.vehiclePlate, pl.language
        FROM ride JOIN account p ON p.id = ride.passengerID JOIN account d ON d.id = ride.driverID
        JOIN rideRequest q ON q.id = ride.requestID
        LEFT JOIN accountLanguage pl ON pl.accountID = ride.passengerID
        """

    private static func detail(_ row: Row) throws -> RideDetail {
        guard let state = RideState(rawValue: row[4]) else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "ride \(row[0] as String) has an unknown state")
        }
        let ride = RideRecord(id: row[0], requestID: row[1], passengerID: row[2], driverID: row[3], state: state, key: row[5],
                              createdAt: Date(timeIntervalSince1970: row[6]), stateChangedAt: Date(timeIntervalSince1970: row[7]),
                              shortCode: row[8], etaMinutes: row[9], etaGivenAt: (row[10] as Double?).map(Date.init(timeIntervalSince1970:)))
        return RideDetail(ride: ride, passenger: RideParty(name: row[11], language: row[21]), driver: RideParty(name: row[12], vehicle: row[13],
                          vehicleDetails: (row[19] as String?).map { Vehicle(colour: row[17], make: row[18], model: $0, plate: row[20]) }),
                          pickup: row[14], dropoff: row[15], accessibilityNotes: row[16])
    }

    public func rideDetail(id: String) async throws -> RideDetail? {
        try await read { db in
            try Row.fetchCursor(db.cachedStatement(sql: Self.detailSelect + " WHERE ride.id = ?"), arguments: [id]).map(Self.detail).next()
        }
    }

    public func rideDetails(_ filter: RideFilter) async throws -> [RideDetail] {
        try await read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            switch filter.scope {
            case .active:
                conditions.append("ride.state NOT IN ('completed', 'cancelled')")
            case .participant(let accountID):
                conditions.append("(ride.passengerID = ? OR ride.driverID = ?)")
                arguments += [accountID, accountID]
            }
            if let after = filter.after {
                guard let anchor = try RideRecord.fetchOne(db, key: after) else { return [] }
                // A row value, so the (createdAt, id) index can seek to the anchor.
                conditions.append("(ride.createdAt, ride.id) > (?, ?)")
                arguments += [anchor.createdAt.sqlValue, anchor.id]
            }
            arguments += [filter.limit]
            let sql = Self.detailSelect + " WHERE " + conditions.joined(separator: " AND ") + " ORDER BY ride.createdAt, ride.id LIMIT ?"
            // A cursor decodes straight from the statement; fetchAll copied every value first.
            return try Array(Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments).map(Self.detail))
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

    /// Runs `body` once per idempotency key: a retry returns the stored first result and
    /// writes nothing. The result is stored in the caller's transaction, so it commits
    /// (or not) together with the write it describes.
    static func idempotent<T: Codable>(_ db: Database, _ key: IdempotencyScope?, operation: String, _ body: () throws -> T) throws -> T {
        guard let key else { return try body() }
        if let stored = try storedResult(T.self, db, key, operation: operation) { return stored }
        let result = try body()
        try storeResult(result, db, key, operation: operation)
        return result
    }

    /// The result stored for `key`, nil when the key is new; throws `idempotencyKeyReused` when
    /// it was used for another operation.
    static func storedResult<T: Decodable>(_ type: T.Type, _ db: Database, _ key: IdempotencyScope, operation: String) throws -> T? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT operation, result FROM idempotency WHERE accountID = ? AND key = ?"),
                                         arguments: [key.accountID, key.key]) else { return nil }
        guard row["operation"] == operation else { throw StoreError.idempotencyKeyReused(key.key) }
        return try JSONDecoder().decode(T.self, from: row["result"] as Data)
    }

    /// Stores `result` for `key`, in the caller's transaction.
    static func storeResult(_ result: some Encodable, _ db: Database, _ key: IdempotencyScope, operation: String) throws {
        try db.execute(sql: "INSERT INTO idempotency (accountID, key, operation, result, createdAt) VALUES (?, ?, ?, ?, ?)",
                       arguments: [key.accountID, key.key, operation, try JSONEncoder().encode(result), Date.storeNow.sqlValue])
    }
}
