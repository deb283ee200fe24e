import Foundation
import RideWire

/// Messages from the passenger to her driver (issue 25, openapi.yaml `POST /v1/rides/{id}/messages`).
extension RideServiceClient {
    /// The ride's passenger tells her driver something: a preset, or her own words. Each
    /// message carries its own Idempotency-Key, which its retries reuse: a message whose answer
    /// was lost is sent again and the server answers the first one, so the driver hears it once.
    public func sendMessage(_ rideID: String, _ message: NewPassengerMessage, idempotencyKey: IdempotencyKey = IdempotencyKey())
        async throws(RideClientError) -> PassengerMessage {
        try await send(.POST, "/v1/rides/\(Self.segment(rideID))/messages", body: Self.encode(message), idempotencyKey: idempotencyKey)
    }
}
