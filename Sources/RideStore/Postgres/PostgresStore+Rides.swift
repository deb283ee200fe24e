import Foundation
import PostgresNIO

extension PostgresStore {
    public func accept(requestID: String, driverID: String, rideKey: Data, rule: BookingRule, assignedBy: String?,
                       idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await sequenced { try await idempotent(idempotency, operation: "accept:\(requestID)") { conn in
            // Serialises the driver's one-at-a-time check with their other accepts, on every server.
            try await conn.run(Prepared<WriteSQL.LockBooking>(AdvisoryLock.driverBooking, driverID), logger: self.logger)
            if let held = try await conn.rows(Prepared<WriteSQL.DriversRideForRequest>(requestID, driverID), logger: self.logger, RideRecord.init(row:)).first,
               held.state.isActive {
                return held
            }
            if rule == .oneRideAtATime,
               let busy = try await conn.rows(Prepared<WriteSQL.DriverBusy>(driverID), logger: self.logger, { try $0.decode(String.self) }).first {
                throw StoreError.busy(role: .driver, existingID: busy)
            }
            let rideID = StoreID.make()
            let won = try await conn.rows(Prepared<WriteSQL.AcceptOpenRequest>(requestID, rideID), logger: self.logger, RideRequestRecord.init(row:))
            guard let request = won.first else {
                guard let current = try await conn.query("SELECT \(unescaped: PGColumns.request) FROM ride_request WHERE id = \(requestID)", logger: self.logger).all(RideRequestRecord.init).first else {
                    throw StoreError.notFound("ride request \(requestID)")
                }
                if current.status == .accepted { throw StoreError.alreadyTaken(requestID) }
                throw StoreError.illegalTransition(from: .cancelled, to: .accepted)
            }
            let now = Date.storeNow
            let ride = RideRecord(id: rideID, requestID: requestID, passengerID: request.passengerID, driverID: driverID,
                            state: .accepted, key: rideKey, createdAt: now, stateChangedAt: now, shortCode: request.shortCode)
            try await conn.run(Prepared<WriteSQL.InsertRide>(ride.id, ride.requestID, ride.passengerID, ride.driverID, ride.state.rawValue,
                                                              ride.key, now, ride.shortCode), logger: self.logger)
            try await self.appendEvent(conn, requestID: requestID, rideID: rideID, state: .accepted, actor: assignedBy ?? driverID, at: now,
                                       detail: assignedBy == nil ? nil : "assigned by a dispatcher")
            return ride
        } }
    }

    public func transition(rideID: String, to state: RideState, by actorID: String, detail: String?, idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await sequenced { try await idempotent(idempotency, operation: "\(state.rawValue):\(rideID)") { conn in
            // One statement checks and moves; only a refusal reads the ride to say why.
            let movableFrom = RideState.allCases.filter { $0.canMove(to: state) }.map(\.rawValue)
            let moved = try Prepared<WriteSQL.MoveRide>(rideID, state.rawValue, Date.storeNow, movableFrom)
            guard let ride = try await conn.rows(moved, logger: self.logger, RideRecord.init(row:)).first else {
                guard let current = try await conn.query("SELECT \(unescaped: PGColumns.ride) FROM ride WHERE id = \(rideID)", logger: self.logger).all(RideRecord.init).first else {
                    throw StoreError.notFound("ride \(rideID)")
                }
                throw StoreError.illegalTransition(from: current.state, to: state)
            }
            try await self.appendEvent(conn, requestID: ride.requestID, rideID: rideID, state: state, actor: actorID, at: ride.stateChangedAt, detail: detail)
            return ride
        } }
    }

    public func ride(id: String) async throws -> RideRecord? {
        try await mapped { try await self.client.query("SELECT \(unescaped: PGColumns.ride) FROM ride WHERE id = \(id)", logger: self.logger).all(RideRecord.init).first }
    }

    public func rideDetail(id: String) async throws -> RideDetail? {
        try await mapped { try await self.client.rows(Prepared<ReadSQL.RideDetail>(id), logger: self.logger, RideDetail.init(row:)).first }
    }

    public func rideDetails(_ filter: RideFilter) async throws -> [RideDetail] {
        let after = filter.after ?? ""
        return try await mapped {
            switch filter.scope {
            case .active:
                return try await self.client.rows(Prepared<ReadSQL.ActiveRideDetails>(after, filter.limit), logger: self.logger, RideDetail.init(row:))
            case .participant(let account):
                return try await self.client.rows(Prepared<ReadSQL.ParticipantRideDetails>(account, after, filter.limit), logger: self.logger,
                                                  RideDetail.init(row:))
            }
        }
    }

    public func rideCounts() async throws -> [RideState: Int] {
        try await mapped {
            var counts = Dictionary(uniqueKeysWithValues: RideState.allCases.map { ($0, 0) })
            let rows = try await self.client.query("""
                SELECT state, COUNT(*)::int8 FROM ride GROUP BY state
                UNION ALL SELECT 'requested', COUNT(*)::int8 FROM ride_request WHERE status = 'open'
                """, logger: self.logger).all { try $0.decode((String, Int64).self) }
            for (state, n) in rows {
                if let state = RideState(rawValue: state) { counts[state] = Int(n) }
            }
            return counts
        }
    }

    /// Runs `body` in a transaction once per idempotency key; retries get the stored result.
    /// Two concurrent first attempts race on the key's primary key: the loser rolls back and
    /// retries, finding the winner's result.
    func idempotent<T: Codable & Sendable>(_ key: IdempotencyScope?, operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        for attempt in 0..<2 {
            do {
                return try await transaction { conn in
                    if let key, let row = try await conn.rows(Prepared<WriteSQL.IdempotentResult>(key.accountID, key.key), logger: self.logger, { $0 }).first {
                        let (stored, result) = try row.decode((String, Data).self)
                        guard stored == operation else { throw StoreError.idempotencyKeyReused(key.key) }
                        return try JSONDecoder().decode(T.self, from: result)
                    }
                    let result = try await body(conn)
                    if let key {
                        let encoded = try JSONEncoder().encode(result)
                        try await conn.run(Prepared<WriteSQL.StoreIdempotentResult>(key.accountID, key.key, operation, encoded, Date.storeNow), logger: self.logger)
                    }
                    return result
                }
            } catch let error as PSQLError where attempt == 0 && error.serverInfo?[.sqlState] == "23505" && key != nil {
                continue
            }
        }
        throw StoreError.unavailable("idempotency key \(key?.key ?? "") could not be settled")
    }
}
