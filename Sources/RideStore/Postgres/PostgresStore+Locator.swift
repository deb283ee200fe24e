import Foundation
import PostgresNIO

extension PostgresStore {
    public func requestLocator(rideID: String, by actorID: String, at now: Date, minimumInterval: Double) async throws -> LocatorRecording {
        let at = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        let kind = RideEventKind.locatorRequested.rawValue
        // The event is staged in the transaction and has its id once sequenced.
        let staged: Staged = try await sequenced { try await transaction { conn in
            // FOR UPDATE: two servers taking the same ride's requests at once see each other's.
            guard let ride = try await conn.query("SELECT \(unescaped: PGColumns.ride) FROM ride WHERE id = \(rideID) FOR UPDATE", logger: self.logger).all(RideRecord.init).first else {
                throw StoreError.notFound("ride \(rideID)")
            }
            guard ride.state == .arrived else { return .refused(.wrongState(ride.state)) }
            // A request still staged (not yet sequenced) counts too.
            let latest = try await conn.query("""
                SELECT MAX(at) FROM (SELECT at FROM ride_event WHERE ride_id = \(rideID) AND kind = \(kind)
                    UNION ALL SELECT at FROM ride_event_pending WHERE ride_id = \(rideID) AND kind = \(kind)) AS requests
                """, logger: self.logger).all { try $0.decode(Date?.self) }.first ?? nil
            if let latest, at.timeIntervalSince(latest) < minimumInterval {
                return .refused(.tooSoon(last: latest, retryAfter: minimumInterval - at.timeIntervalSince(latest)))
            }
            try await self.appendEvent(conn, requestID: ride.requestID, rideID: ride.id, kind: .locatorRequested, state: ride.state,
                                       actor: actorID, at: at, detail: nil)
            return .appended(requestID: ride.requestID)
        } }
        let requestID: String
        switch staged {
        case .refused(let refusal): return refusal
        case .appended(let id): requestID = id
        }
        return .recorded(try await eventJustWritten(requestID: requestID, kind: kind))
    }

    private enum Staged: Sendable {
        case refused(LocatorRecording)
        case appended(requestID: String)
    }

    /// The newest event of `kind` of a request, read back once its staged write has been
    /// sequenced (the locator and the ride's notes both answer with it).
    func eventJustWritten(requestID: String, kind: String) async throws -> RideEvent {
        let event = try await mapped {
            try await self.client.query("""
                SELECT \(unescaped: PGColumns.event) FROM ride_event WHERE request_id = \(requestID) AND kind = \(kind)
                ORDER BY sequence DESC LIMIT 1
                """, logger: self.logger).all(RideEvent.init).first
        }
        guard let event else { throw StoreError.unavailable("the \(kind) event just written is not yet in the history") }
        return event
    }
}
