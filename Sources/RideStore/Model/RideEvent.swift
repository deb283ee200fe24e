import Foundation

/// One entry of a ride's append-only history, which starts when the passenger asks for the
/// ride: `requested` (and `cancelled`, if withdrawn before a driver accepts) belong to the
/// request alone and have no `rideID`; from `accepted` on every event names the ride too.
/// `id` is global and increasing, so a listener that reconnects with the last id it saw
/// misses nothing (SSE `Last-Event-ID`).
public struct RideEvent: Codable, Equatable, Sendable {
    public var id: Int64
    public var requestID: String
    /// Nil for events that happened before a driver accepted (the ride did not exist yet).
    public var rideID: String?
    /// Position in this request's (and so its ride's) own history, from 1, without gaps.
    public var sequence: Int
    public var state: RideState
    public var actorID: String
    public var at: Date
    public var detail: String?
}
