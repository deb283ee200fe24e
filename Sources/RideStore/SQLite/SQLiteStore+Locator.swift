import Foundation
import GRDB
import RideRules

extension SQLiteStore {
    public func requestLocator(rideID: String, by actorID: String, at now: Date, minimumInterval: Double) async throws -> LocatorRecording {
        let at = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        return try await write { db in
            guard let ride = try RideRecord.fetchOne(db, key: rideID) else { throw StoreError.notFound("ride \(rideID)") }
            guard ride.state == .arrived else { return .wrongState(ride.state) }
            // The latest request (the interval) and how many there were (the cap), in one read.
            let earlier = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT MAX(at), COUNT(*) FROM rideEvent WHERE rideID = ? AND kind = ?"),
                arguments: [rideID, RideEventKind.locatorRequested])
            let latest: Double? = earlier?[0]
            if let latest, let retryAfter = RideLimits.locatorRetryAfter(last: latest, now: at.sqlValue, minimumInterval: minimumInterval) {
                return .tooSoon(last: Date(timeIntervalSince1970: latest), retryAfter: retryAfter)
            }
            let asked: Int = earlier?[1] ?? 0
            guard asked < RideHistoryLimits.locatorRequestsPerRide else { throw RideHistoryLimits.locatorRefusal }
            try Self.appendEvent(db, requestID: ride.requestID, rideID: ride.id, kind: .locatorRequested, state: ride.state,
                                 actor: actorID, at: at, detail: nil)
            guard let event = try RideEvent.fetchOne(db, key: db.lastInsertedRowID) else {
                throw StoreError.unavailable("the locator event just written cannot be read back")
            }
            return .recorded(event)
        }
    }
}
