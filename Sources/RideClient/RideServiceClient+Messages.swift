import Foundation
import RideWire

/// Messages from the passenger to her driver (issue 25, openapi.yaml `POST /v1/rides/{id}/messages`).
extension RideServiceClient {
    /// The ride's passenger tells her driver something: a preset, or her own words. The
    /// server keeps no idempotency result for messages, so it is not retried once it may
    /// have reached the server (a retry could say it twice).
    public func sendMessage(_ rideID: String, _ message: NewPassengerMessage) async throws(RideClientError) -> PassengerMessage {
        try await send(.POST, "/v1/rides/\(Self.segment(rideID))/messages", body: Self.encode(message))
    }
}
