import Foundation
import GRDB

extension SQLiteStore {
    public func spendRideWordAttempt(rideID: String, limit: Int) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE ride SET rideWordAttempts = rideWordAttempts + 1 WHERE id = ? AND rideWordAttempts < ?",
                           arguments: [rideID, limit])
            if db.changesCount == 1 { return true }
            guard try RideRecord.fetchOne(db, key: rideID) != nil else { throw StoreError.notFound("ride \(rideID)") }
            return false
        }
    }
}
