import Foundation
import PostgresNIO

extension PostgresStore {
    /// The UPDATE's row lock makes racing attempts count one after another, on every server.
    public func spendRideWordAttempt(rideID: String, limit: Int) async throws -> Bool {
        try await transaction { conn in
            let spent = try await conn.query("""
                UPDATE ride SET ride_word_attempts = ride_word_attempts + 1 WHERE id = \(rideID) AND ride_word_attempts < \(limit) RETURNING 1
                """, logger: self.logger).all { $0 }.count
            if spent == 1 { return true }
            let rides = try await conn.query("SELECT 1 FROM ride WHERE id = \(rideID)", logger: self.logger).all { $0 }.count
            guard rides == 1 else { throw StoreError.notFound("ride \(rideID)") }
            return false
        }
    }
}
