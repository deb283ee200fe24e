import Foundation
import PostgresNIO

extension PostgresStore {
    public func requestLocator(rideID: String, by actorID: String, at now: Date, minimumInterval: Double) async throws -> LocatorRecording {
        let at = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        let kind = RideEventKind.locatorRequested.rawValue
        return try await transaction { conn in
            // FOR UPDATE: two servers taking the same ride's requests at once see each other's.
            guard let ride = try await conn.query("SELECT \(unescaped: PGColumns.ride) FROM ride WHERE id = \(rideID) FOR UPDATE", logger: self.logger).all(RideRecord.init).first else {
                throw StoreError.notFound("ride \(rideID)")
            }
            guard ride.state == .arrived else { return .wrongState(ride.state) }
            let latest = try await conn.query("SELECT MAX(at) FROM ride_event WHERE ride_id = \(rideID) AND kind = \(kind)", logger: self.logger)
                .all { try $0.decode(Date?.self) }.first ?? nil
            if let latest, at.timeIntervalSince(latest) < minimumInterval {
                return .tooSoon(last: latest, retryAfter: minimumInterval - at.timeIntervalSince(latest))
            }
            try await self.appendEvent(conn, requestID: ride.requestID, rideID: ride.id, kind: .locatorRequested, state: ride.state,
                                       actor: actorID, at: at, detail: nil)
            guard let event = try await conn.query("SELECT \(unescaped: PGColumns.event) FROM ride_event WHERE request_id = \(ride.requestID) ORDER BY sequence DESC LIMIT 1", logger: self.logger).all(RideEvent.init).first else {
                throw StoreError.unavailable("the locator event just written cannot be read back")
            }
            return .recorded(event)
        }
    }
}
