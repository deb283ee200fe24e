import Foundation
import GRDB

// Issue 25: history that says what happened (who cancelled, and why).

extension SQLiteStore {
    public func cancellation(requestID: String) async throws -> RideEvent? {
        try await read { db in
            try RideEvent.fetchOne(db, sql: """
                SELECT * FROM rideEvent WHERE requestID = ? AND state = 'cancelled' AND kind = 'state_changed'
                ORDER BY id DESC LIMIT 1
                """, arguments: [requestID])
        }
    }
}
