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
    /// What happened: a state change (most events), or a request made at the kerb.
    public var kind: RideEventKind
    /// The state this event moved to; for other kinds, the state the ride was in.
    public var state: RideState
    /// The account that caused the change ("operator" for admin CLI overrides).
    public var actorID: String
    /// When it happened.
    public var at: Date
    /// E.g. a cancellation's reason.
    public var detail: String?

    /// An event with every field given.
    public init(id: Int64, requestID: String, rideID: String?, sequence: Int, kind: RideEventKind = .stateChanged,
                state: RideState, actorID: String, at: Date, detail: String?) {
        self.id = id
        self.requestID = requestID
        self.rideID = rideID
        self.sequence = sequence
        self.kind = kind
        self.state = state
        self.actorID = actorID
        self.at = at
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey {
        case id, requestID = "requestId", rideID = "rideId", sequence, kind, state, actorID = "actorId", at, detail
    }

    /// `kind` may be absent (servers before it existed sent state changes only).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        requestID = try container.decode(String.self, forKey: .requestID)
        rideID = try container.decodeIfPresent(String.self, forKey: .rideID)
        sequence = try container.decode(Int.self, forKey: .sequence)
        kind = try container.decodeIfPresent(RideEventKind.self, forKey: .kind) ?? .stateChanged
        state = try container.decode(RideState.self, forKey: .state)
        actorID = try container.decode(String.self, forKey: .actorID)
        at = try container.decode(Date.self, forKey: .at)
        detail = try container.decodeIfPresent(String.self, forKey: .detail)
    }
}

/// What a `RideEvent` records. A client keeps kinds it does not know as they came, and
/// ignores them (`isStateChange` false), so a newer server's events never break an older client.
public struct RideEventKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The kind as it appears in the JSON and as the stream's `event:` name.
    public var rawValue: String
    /// Any kind, known or not (a newer server's kinds are kept as they came).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The kind's wire name.
    public var description: String { rawValue }

    /// The ride (or request) moved to `state`.
    public static let stateChanged = Self(rawValue: "state_changed")
    /// The passenger asked the car to play its locator sound (`POST /v1/rides/{id}/locator`);
    /// `state` is the ride's, `arrived`.
    public static let locatorRequested = Self(rawValue: "locator_requested")
    /// One side's touch proof landed without confirming the ride (mutual policy); `state` is the
    /// ride's, `arrived`, and `detail` the proof's observation window (`TouchObserved`).
    public static let touchObserved = Self(rawValue: TouchObserved.eventName)
    /// The driver told the passenger when they will be at the pickup; `state` is `accepted`,
    /// `detail` the ETA (`ETAText`).
    public static let etaGiven = Self(rawValue: "eta_given")

    /// Whether the event moved the ride to a new state (every other kind leaves the state as it was).
    public var isStateChange: Bool { self == .stateChanged }

    /// Encodes as the bare string (`"state_changed"`), not an object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Decodes the bare string; an unknown kind decodes too.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
}

/// The answer to `POST /v1/rides/{id}/locator`: the event that now asks the car to sound.
public struct LocatorRequest: Sendable, Equatable, Codable {
    /// The `locator_requested` event's id on the ride's stream.
    public var eventID: Int64
    /// The ride the car is to sound for.
    public var rideID: String
    /// When the request was recorded.
    public var requestedAt: Date
    /// How long the car sounds, s (unless the devices touch first).
    public var soundSeconds: Int
    /// The earliest the passenger may ask again.
    public var nextAllowedAt: Date

    /// The answer as the server builds it from the stored event.
    public init(eventID: Int64, rideID: String, requestedAt: Date, soundSeconds: Int, nextAllowedAt: Date) {
        self.eventID = eventID
        self.rideID = rideID
        self.requestedAt = requestedAt
        self.soundSeconds = soundSeconds
        self.nextAllowedAt = nextAllowedAt
    }

    enum CodingKeys: String, CodingKey {
        case eventID = "eventId", rideID = "rideId", requestedAt, soundSeconds, nextAllowedAt
    }
}

/// A touch proof that did not confirm the ride (mutual policy), as the ride's history records
/// it: the detail of a `touch_observed` event (the ride stays arrived), sent on the stream as
/// `event: touch_observed`. The other side's device learns from it when its counterpart felt
/// the touch, and says "Touch detected" only when both did (`MutualTouchRule`).
public struct TouchObserved: Sendable, Equatable {
    /// The server-sent event's name.
    public static let eventName = "touch_observed"
    private static let prefix = "touch_observed by "

    /// Which side's device felt the touch.
    public var side: TouchSide
    /// The proof's observation window.
    public var from: Date
    /// The window's end (the proof's time).
    public var until: Date

    /// `side` felt the touch from `from` until `until`.
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
    /// The touch proof this event records, if it is one (`touch_observed` events only: their
    /// detail is the server's, never a caller's text).
    public var touchObserved: TouchObserved? {
        guard kind == .touchObserved, let detail else { return nil }
        return TouchObserved(detail: detail)
    }

    /// The server-sent event's name: the state it moved to, or the kind of an event that
    /// changes no state (`locator_requested`, `touch_observed`, `eta_given`).
    public var name: String { kind.isStateChange ? state.rawValue : kind.rawValue }
}
