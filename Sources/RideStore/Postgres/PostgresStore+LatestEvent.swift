import Foundation
import PostgresNIO

extension PostgresStore {
    /// By the index (ride_id, kind, id) of migration `bounded-ride-notes`.
    public func latestEvent(rideID: String, kinds: Set<RideEventKind>) async throws -> RideEvent? {
        guard !kinds.isEmpty else { return nil }
        let names = kinds.map(\.rawValue).sorted()
        return try await mapped {
            try await self.client.query("""
                SELECT \(unescaped: PGColumns.event) FROM ride_event WHERE ride_id = \(rideID) AND kind = ANY(\(names))
                ORDER BY id DESC LIMIT 1
                """, logger: self.logger).all(RideEvent.init).first
        }
    }
}
