import Foundation

/// One entry of a ride's append-only history. `id` is global and increasing, so a listener
/// that reconnects with the last id it saw misses nothing (SSE `Last-Event-ID`).
public struct RideEvent: Codable, Equatable, Sendable {
    public var id: Int64
    public var rideID: String
    /// Position in this ride's own history, from 1, without gaps.
    public var sequence: Int
    public var state: RideState
    public var actorID: String
    public var at: Date
    public var detail: String?
}
