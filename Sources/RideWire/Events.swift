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

/// A touch proof that did not confirm the ride (mutual policy), as the ride's history records
/// it: the detail of an `arrived` event (the ride stays arrived), sent on the stream as
/// `event: touch_observed`. The other side's device learns from it when its counterpart felt
/// the touch, and says "Touch detected" only when both did (`MutualTouchRule`).
public struct TouchObserved: Sendable, Equatable {
    /// The server-sent event's name.
    public static let eventName = "touch_observed"
    private static let prefix = "touch_observed by "

    public var side: TouchSide
    /// The proof's observation window.
    public var from: Date
    public var until: Date

    public init(side: TouchSide, from: Date, until: Date) {
        self.side = side
        self.from = from
        self.until = until
    }

    /// The event's detail: `touch_observed by driver from 2026-01-01T12:00:00.000Z until 2026-01-01T12:00:01.250Z`.
    public var detail: String {
        "\(Self.prefix)\(side.rawValue) from \(WireDates.format(from)) until \(WireDates.format(until))"
    }

    /// nil unless `detail` is exactly what `detail` writes.
    public init?(detail: String) {
        guard detail.hasPrefix(Self.prefix) else { return nil }
        let words = detail.dropFirst(Self.prefix.count).split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 5, words[1] == "from", words[3] == "until", let side = TouchSide(rawValue: String(words[0])),
              let from = WireDates.parse(String(words[2])), let until = WireDates.parse(String(words[4])) else { return nil }
        self.init(side: side, from: from, until: until)
    }
}

extension RideEvent {
    /// The touch proof this event records, if it is one (only `arrived` events can be: their
    /// detail is the server's, never a caller's text).
    public var touchObserved: TouchObserved? {
        guard state == .arrived, let detail else { return nil }
        return TouchObserved(detail: detail)
    }

    /// The server-sent event's name: the state it moved to, or `touch_observed`.
    public var name: String { touchObserved == nil ? state.rawValue : TouchObserved.eventName }
}
