import Foundation
import PostgresNIO

extension PostgresStore {
    /// By the index (ride_id, kind, id) of migration `bounded-ride-notes`.
    public func latestEvent(rideID: String, kinds: Set<RideEventKind>) async throws -> RideEvent? {
        guard !kinds.isEmpty else { return nil }
        let names = kinds.map(\.rawValue).sorted()
        return try await mapped {
            try await self.pools.lease { try await $0.query("""
                SELECT \(unescaped: PGColumns.event) FROM ride_event WHERE ride_id = \(rideID) AND kind = ANY(\(names))
                ORDER BY id DESC LIMIT 1
                """, logger: self.logger).all(RideEvent.init).first }
        }
    }

    public func events(rideID: String, after id: Int64, limit: Int) async throws -> [RideEvent] {
        try await mapped {
            try await self.db.rows(Prepared<ReadSQL.RideEventsPage>(rideID, id, limit), logger: self.logger, RideEvent.init(row:))
        }
    }
}

extension ReadSQL {
    /// A page of one ride's history: each page of a stream's replay.
    enum RideEventsPage: PreparedSQL {
        static let sql = """
            SELECT \(PGColumns.event) FROM ride_event WHERE request_id = (SELECT request_id FROM ride WHERE id = $1) AND id > $2
            ORDER BY id LIMIT $3
            """
    }
}
