import Hummingbird
import RideRules
import RideStore

/// The authorization of the API, asking RideRules' `RideAccess` (who may do what, for every
/// surface). Order of checks: a role that may never do something gets 403 (that reveals nothing
/// about any ride); a role that may, but not on this ride, gets 404 exactly as if the ride did
/// not exist.
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

extension RideRequestContext {
    /// The caller, if their role may ever do `act` (RideRules' `RideAccess`); 403 otherwise.
    func caller(for act: RideAct, to action: String) throws -> Account {
        try caller(in: RideAccess.roles(for: act), to: action)
    }
}

extension RideRelation {
    /// How `account` stands to `ride` (RideRules' `RideAccess` decides what that allows).
    init(_ account: Account, to ride: RideRecord) {
        self.init(role: account.role, accountID: account.id, passengerID: ride.passengerID, driverID: ride.driverID)
    }

    /// How `account` stands to a ride request (which has no driver yet).
    init(_ account: Account, toRequest request: RideRequestRecord) {
        self.init(role: account.role, accountID: account.id, passengerID: request.passengerID, driverID: nil)
    }
}

extension RideAccess {
    /// `may`, or the API's refusal for a ride or request the caller may not act on: 404 naming
    /// `what`, exactly as for one that does not exist. The pages call it too, so a page never
    /// lets anyone do what the API would refuse them.
    static func require(_ party: RideRelation, _ act: RideAct, on what: String) throws {
        guard may(party, act) else { throw APIError.notFound(what) }
    }
}
