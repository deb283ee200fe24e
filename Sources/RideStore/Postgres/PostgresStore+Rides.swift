import Foundation
import PostgresNIO

extension PostgresStore {
    /// One statement (`rb_accept_8`, FoldedTransitions) and the sequencing run.
    public func accept(requestID: String, driverID: String, rideKey: Data, rule: BookingRule, assignedBy: String?,
                       idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await roundTrips.operation("accept") {
            try await acceptInOneTrip(requestID: requestID, driverID: driverID, rideKey: rideKey, rule: rule, assignedBy: assignedBy,
                                      idempotency: idempotency)
        }
    }

    /// Arrive, confirm (the ride word), complete, cancel: one statement (`rb_move_ride_8`) and
    /// the sequencing run.
    public func transition(rideID: String, to state: RideState, by actorID: String, detail: String?, idempotency: IdempotencyScope?) async throws -> RideRecord {
        try await roundTrips.operation(state.rawValue) {
            try await transitionInOneTrip(rideID: rideID, to: state, by: actorID, detail: detail, idempotency: idempotency)
        }
    }

    public func ride(id: String) async throws -> RideRecord? {
        try await roundTrips.operation("ride") {
            try await mapped { try await self.db.rows(Prepared<ReadSQL.Ride>(id), logger: self.logger, RideRecord.init(row:)).first }
        }
    }

    public func rideDetail(id: String) async throws -> RideDetail? {
        try await roundTrips.operation("ride-detail") {
            try await mapped { try await self.db.rows(Prepared<ReadSQL.RideDetail>(id), logger: self.logger, RideDetail.init(row:)).first }
        }
    }

    public func rideDetails(_ filter: RideFilter) async throws -> [RideDetail] {
        let after = filter.after ?? ""
        return try await mapped {
            switch filter.scope {
            case .active:
                return try await self.db.rows(Prepared<ReadSQL.ActiveRideDetails>(after, filter.limit), logger: self.logger, RideDetail.init(row:))
            case .participant(let account):
                return try await self.db.rows(Prepared<ReadSQL.ParticipantRideDetails>(account, after, filter.limit), logger: self.logger,
                                                  RideDetail.init(row:))
            }
        }
    }

    public func rideCounts() async throws -> [RideState: Int] {
        try await mapped {
            var counts = Dictionary(uniqueKeysWithValues: RideState.allCases.map { ($0, 0) })
            let rows = try await self.db.query("""
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
    func idempotent<T: Codable & Sendable>(_ key: IdempotencyScope?, operation: String, _ body: @escaping @Sendable (CountedConnection) async throws -> T) async throws -> T {
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
