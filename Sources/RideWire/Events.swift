import Foundation

/// One entry of a ride's append-only history (openapi.yaml `RideEvent`, the `data` of a
/// server-sent event). History starts when the passenger asks: `requested` (and `cancelled`,
/// if withdrawn before a driver accepts) belong to the request alone and have no `rideID`.
/// `id` is global and increasing, so a listener that reconnects with the last id it saw
/// (SSE `Last-Event-ID`) misses nothing.
public struct RideEvent: Sendable, Equatable, Codable {
    /// Global and increasing: the resume point.
    public var id: Int64
    /// The request whose history this is.
    public var requestID: String
    /// Absent on `requested`, and on `cancelled` when the request was withdrawn before a driver accepted.
    public var rideID: String?
    /// Position in the request's (and so its ride's) own history, from 1, without gaps.
    public var sequence: Int
    /// The state this event moved to.
    public var state: RideState
    /// The account that caused the change ("operator" for admin CLI overrides).
    public var actorID: String
    /// When it happened.
    public var at: Date
    /// E.g. a cancellation's reason.
    public var detail: String?

    /// An event with every field given.
    public init(id: Int64, requestID: String, rideID: String?, sequence: Int, state: RideState, actorID: String,
                at: Date, detail: String?) {
        self.id = id
        self.requestID = requestID
        self.rideID = rideID
        self.sequence = sequence
        self.state = state
        self.actorID = actorID
        self.at = at
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey {
        case id, requestID = "requestId", rideID = "rideId", sequence, state, actorID = "actorId", at, detail
    }
}
