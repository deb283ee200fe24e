import Hummingbird
import RideStore

/// The authorization rules of the API in one place. Order of checks: a role that may never do
/// something gets 403 (that reveals nothing about any ride); a role that may, but not on this
/// ride, gets 404 exactly as if the ride did not exist.
extension RideRequestContext {
    /// The authenticated account (routes behind `AuthMiddleware` always have one).
    func caller() throws -> Account {
        guard let account else { throw APIError.unauthenticated("send Authorization: Bearer <token>") }
        return account
    }

    /// The caller, if their role is one of `roles`; 403 otherwise.
    func caller(in roles: Set<Role>, to action: String) throws -> Account {
        let account = try caller()
        guard roles.contains(account.role) else {
            let names = roles.map(\.rawValue).sorted().joined(separator: " or ")
            throw APIError.forbidden("only a \(names) may \(action)")
        }
        return account
    }
}

/// How an account relates to one ride.
enum RideRelation {
    case passenger, driver, dispatcher

    init?(_ account: Account, to ride: RideRecord) {
        switch account.role {
        case .passenger where ride.passengerID == account.id: self = .passenger
        case .driver where ride.driverID == account.id: self = .driver
        case .dispatcher: self = .dispatcher
        default: return nil
        }
    }

    /// The ride key is the root of the rotating beacon identity: only the two people who
    /// have to find each other may hold it.
    var seesKey: Bool { self != .dispatcher }
}
