// The /v1 API's JSON models (openapi.yaml, components/schemas), once: the server encodes
// them, the client decodes them, and the store maps its records to them. Foundation only.
// Swift names follow the package's spelling (`requestID`); the JSON keys are the contract's
// (`requestId`), fixed by each type's CodingKeys.

/// Where a ride is in its life: requested → accepted → arrived → confirmed → completed, and
/// cancelled from any state before completed.
///
/// `requested` is the request's own state; a ride exists from `accepted` on. Which moves the
/// lifecycle allows is RideRules' `RideLifecycle` (`RideState.canMove(to:)` there).
public enum RideState: String, Sendable, Codable, CaseIterable {
    case requested, accepted, arrived, confirmed, completed, cancelled

    /// Not yet completed or cancelled: dispatchers list it, and it may still change.
    public var isActive: Bool { self != .completed && self != .cancelled }

    /// Nothing follows these: a client waiting on the ride can stop.
    public var isFinal: Bool { !isActive }

    /// The driver is taken by this ride: on his way, at the kerb, or with the passenger on board
    /// (confirmed, not yet completed). A driver is free for another request only when none of
    /// his rides is in one of these states (one ride at a time, every store and surface).
    public var occupiesDriver: Bool { self == .accepted || self == .arrived || self == .confirmed }

    /// `occupiesDriver` as an SQL list of quoted states, for the stores' busy checks.
    public static var driverOccupyingSQLList: String {
        allCases.filter(\.occupiesDriver).map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}

/// What an account may do; one role per account.
public enum Role: String, Sendable, Codable, CaseIterable {
    /// Requests rides and is guided to the car.
    case passenger
    /// Accepts requests and advertises the ride's beacon on arrival.
    case driver
    /// Sees every active ride, live; cancels.
    case dispatcher
    /// Manages accounts and tokens.
    case admin
}

/// Which of a ride's two people sent a touch proof: the caller's role on the ride.
public enum TouchSide: String, Sendable, Codable, CaseIterable {
    case passenger, driver

    /// The other person on the ride.
    public var counterpart: TouchSide { self == .passenger ? .driver : .passenger }
}
