import Foundation
import PostgresNIO

extension PostgresStore {
    /// One CALL (`rb_request_locator_4`, TransitionProcedures.v4): checks, stages the request,
    /// commits, sequences and answers with the event and its id.
    public func requestLocator(rideID: String, by actorID: String, at now: Date, minimumInterval: Double) async throws -> LocatorRecording {
        try await roundTrips.operation("locator") {
            try await requestLocatorInOneTrip(rideID: rideID, by: actorID, at: now, minimumInterval: minimumInterval)
        }
    }
}
