import Foundation
import PostgresNIO

// Issue 25: history that says what happened (who cancelled, and why).

extension PostgresStore {
    public func cancellation(requestID: String) async throws -> RideEvent? {
        try await mapped {
            try await self.pools.lease { try await $0.query("""
                SELECT \(unescaped: PGColumns.event) FROM ride_event WHERE request_id = \(requestID) AND state = 'cancelled'
                AND kind = 'state_changed' ORDER BY id DESC LIMIT 1
                """, logger: self.logger).all(RideEvent.init).first }
        }
    }
}
