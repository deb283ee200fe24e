import Foundation
import PostgresNIO

extension PostgresStore {
    /// One statement (`rb_request_locator_1`, TransitionFunctions), the sequencing run, and the
    /// event read back with its id.
    public func requestLocator(rideID: String, by actorID: String, at now: Date, minimumInterval: Double) async throws -> LocatorRecording {
        try await roundTrips.operation("locator") {
            try await requestLocatorInOneTrip(rideID: rideID, by: actorID, at: now, minimumInterval: minimumInterval)
        }
    }

    /// The newest event of `kind` of a request, read back once its staged write has been
    /// sequenced (the locator and the ride's notes both answer with it).
    func eventJustWritten(requestID: String, kind: String) async throws -> RideEvent {
        let event = try await mapped {
            try await self.db.query("""
                SELECT \(unescaped: PGColumns.event) FROM ride_event WHERE request_id = \(requestID) AND kind = \(kind)
                ORDER BY sequence DESC LIMIT 1
                """, logger: self.logger).all(RideEvent.init).first
        }
        guard let event else { throw StoreError.unavailable("the \(kind) event just written is not yet in the history") }
        return event
    }
}
