import RideWire

/// How an account stands to one ride or ride request: the relation every "who may" rule reads.
public enum RideRelation: String, Sendable, CaseIterable {
    /// The ride's (or request's) own passenger.
    case itsPassenger
    /// The ride's own driver.
    case itsDriver
    /// A passenger who is not on it.
    case otherPassenger
    /// A driver who is not on it (every driver, for a request no one accepted yet).
    case otherDriver
    case dispatcher
    case admin

    /// The relation of the account `accountID` with `role` to a ride of `passengerID` and
    /// `driverID` (nil: a request, which has no driver yet).
    public init(role: Role, accountID: String, passengerID: String, driverID: String?) {
        switch role {
        case .passenger: self = accountID == passengerID ? .itsPassenger : .otherPassenger
        case .driver: self = accountID == driverID ? .itsDriver : .otherDriver
        case .dispatcher: self = .dispatcher
        case .admin: self = .admin
        }
    }

    /// The account's role.
    public var role: Role {
        switch self {
        case .itsPassenger, .otherPassenger: .passenger
        case .itsDriver, .otherDriver: .driver
        case .dispatcher: .dispatcher
        case .admin: .admin
        }
    }

    /// Its side of the ride, for the ride's own two people (touch proofs, positions).
    public var side: TouchSide? {
        switch self {
        case .itsPassenger: .passenger
        case .itsDriver: .driver
        default: nil
        }
    }
}

/// Something an account does to a ride or a ride request, on any surface (the /v1 API, the
/// passenger page, the dispatcher page, the CLI through the API).
public enum RideAct: String, Sendable, CaseIterable {
    case viewRide, cancelRide, cancelRequest, acceptRequest, assignRequest
    case arrive, complete, giveETA
    case proveTouch, confirmByRideWord
    case requestLocator, answerLocator, sayComing, sayAcross, reportGuide, sendMessage
    /// The passenger asks the driver to come to her; the driver's device answers (issue 37).
    case askToCome, answerCome
    case sharePosition, seeOtherPosition, seeCoarsePositions
}

/// Who may do what, once (issue 38): each act's parties. Every surface asks here, so "who may
/// cancel" is one line. The API's order of refusals: a role none of whose parties may act is
/// refused before any ride is read (403, it reveals nothing); a role that may, but not as this
/// ride's party, is answered as if the ride did not exist (404).
///
/// ```swift
/// RideAccess.check(.cancelRide, by: .otherDriver)   // .notThisRide
/// RideAccess.roles(for: .cancelRequest)              // [.passenger, .dispatcher]
/// ```
public enum RideAccess {
    /// What the rule says of one party and one act.
    public enum Answer: Equatable, Sendable {
        case allowed
        /// No account of this role may (403).
        case roleMayNot
        /// Its role may, but not on this ride (404, as for no ride).
        case notThisRide
    }

    /// The parties that may do `act`.
    public static func parties(for act: RideAct) -> Set<RideRelation> {
        switch act {
        case .viewRide: [.itsPassenger, .itsDriver, .dispatcher]
        // Either of the ride's people, or a dispatcher (who must say why: `needsReason`).
        case .cancelRide: [.itsPassenger, .itsDriver, .dispatcher]
        // Before a driver accepts it: the passenger's own, or a dispatcher's.
        case .cancelRequest: [.itsPassenger, .dispatcher]
        // Any driver (his own repeat answers his ride again); the store decides who wins.
        case .acceptRequest: [.otherDriver, .itsDriver]
        case .assignRequest: [.dispatcher]
        case .arrive, .complete, .giveETA, .answerLocator, .sayComing, .answerCome: [.itsDriver]
        // The passenger's guide says only that the car is across; only the driver walks over.
        case .sayAcross: [.itsDriver, .itsPassenger]
        case .proveTouch, .sharePosition, .seeOtherPosition: [.itsPassenger, .itsDriver]
        case .confirmByRideWord, .requestLocator, .reportGuide, .sendMessage, .askToCome: [.itsPassenger]
        case .seeCoarsePositions: [.dispatcher]
        }
    }

    /// The roles with at least one party that may do `act` (the 403 check).
    public static func roles(for act: RideAct) -> Set<Role> { Set(parties(for: act).map(\.role)) }

    /// Whether `party` may do `act`.
    public static func may(_ party: RideRelation, _ act: RideAct) -> Bool { parties(for: act).contains(party) }

    /// `may`, with the reason a refusal is a 403 or a 404.
    public static func check(_ act: RideAct, by party: RideRelation) -> Answer {
        if may(party, act) { return .allowed }
        return roles(for: act).contains(party.role) ? .notThisRide : .roleMayNot
    }

    /// The ride key is the root of the rotating beacon identity: only the two people who have to
    /// find each other may hold it.
    public static func seesKey(_ party: RideRelation) -> Bool { party == .itsPassenger || party == .itsDriver }

    /// A cancellation (of a ride or a request) by this role must say why, kept in the history:
    /// a dispatcher's, which the passenger and driver did not ask for. By role, since a
    /// dispatcher stands alike to every ride: the API checks it with the body, before the ride.
    public static func cancellationNeedsReason(by role: Role) -> Bool { role == .dispatcher }
}
