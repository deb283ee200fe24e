import Foundation
import HTTPTypes
import Hummingbird
import RideRules
import RideStore

// The routes, grouped by who they serve (Hummingbird 2's route-collection style: a small
// struct holding only what its handlers use, generic over the request context, with
// `addRoutes(to:)`):
// - the JSON API under /v1, one collection per resource: `AccountRoutes`, `SignInRoutes`,
//   `RideRequestRoutes`, `RideRoutes`, `TouchProofRoutes`, `LocatorRoutes`, `MeetingRoutes`,
//   `PlaceRoutes`, `EventRoutes`; `OperationsRoutes` beside it (health, metrics);
// - the passengers' page at / (`PassengerPageRoutes`);
// - the dispatchers' page at /dispatch (`DispatcherPageRoutes`).
// `RideServer.makeApplication` builds them. None of them announces its writes: the store does
// that after every commit (`Store.commits`), so streams hear of every change.

/// Registers routes and remembers which methods each path has, so other methods on a known
/// path are answered 405 with `Allow` instead of 404.
final class RouteCatalog: @unchecked Sendable {
    // Only touched while the router is built, on one task.
    private(set) var methodsByPath: [String: [HTTPRequest.Method]] = [:]

    func note(_ path: String, _ method: HTTPRequest.Method) {
        methodsByPath[path, default: []].append(method)
    }

    /// Adds a 405 responder for every common method a known path lacks.
    func addMethodNotAllowed<Context: RequestContext>(to router: Router<Context>) {
        for (path, allowed) in methodsByPath {
            for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] where !allowed.contains(method) {
                router.on(RouterPath(stringLiteral: path), method: method) { _, _ -> Response in
                    throw APIError.methodNotAllowed(method, allowed: allowed)
                }
            }
        }
    }
}

/// A router group that records what it registers in a `RouteCatalog`; what every collection's
/// `addRoutes(to:)` is given.
struct RouteRegistrar<Context: RideRequestContext> {
    let group: RouterGroup<Context>
    let prefix: String
    let catalog: RouteCatalog

    func get(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        catalog.note(prefix + path, .get)
        group.get(RouterPath(stringLiteral: path), use: handler)
    }

    func post(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        catalog.note(prefix + path, .post)
        group.post(RouterPath(stringLiteral: path), use: handler)
    }
}

/// Rides and requests as several collections find and show them: ids from short codes, the
/// caller's view of a ride, and the one-ride-at-a-time refusal that names the ride in the way.
struct RideLookup: Sendable {
    let store: any Store
    /// The rotating identity's slot period, shown with the ride key.
    let identityPeriod: Int
    /// The server's clock (tests step it).
    let now: @Sendable () -> Date

    /// The one place a ride becomes a response: the key (and its period) only when `showKey`.
    func rideView(_ detail: RideDetail, showKey: Bool) -> Ride {
        var view = Ride(detail, showKey: showKey, identityPeriod: identityPeriod)
        view.stuck = RideWatch.isStuck(detail.ride, now: now())
        return view
    }

    /// Runs a booking; a one-ride-at-a-time refusal names the held ride by its short code, so
    /// the person hears which ride is in the way. `assigning`: a dispatcher gives the request to
    /// this driver, so the refusal names him rather than saying "you".
    func booking<T>(assigning driverName: String? = nil, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch StoreError.busy(let role, let existing) {
            var error = APIError(StoreError.busy(role: role, existingID: existing))
            var code: String?
            if let ride = try? await store.ride(id: existing) {
                code = ride.shortCode
            } else if let request = try? await store.rideRequest(id: existing) {
                code = request.shortCode
            }
            if let code, let driverName {
                error.message = "\(driverName) already has ride \(code) (a passenger waiting or on board); choose another driver"
            } else if let code {
                error.message = role == .driver
                    ? "you already have ride \(code); finish or cancel it before accepting another"
                    : "you already have ride \(code) (open or active); cancel it before asking for another"
            }
            throw error
        }
    }

    /// A request id as given, or the id of the request a short code names (`ShortCode`).
    func requestID(from idOrCode: String) async throws -> String {
        guard let code = ShortCode.normalized(idOrCode) else { return idOrCode }
        guard let request = try await store.rideRequest(code: code) else { throw APIError.notFound("ride request \(code)") }
        return request.id
    }

    /// A ride id as given, or the id of the ride a short code names.
    func rideID(from idOrCode: String) async throws -> String {
        guard let code = ShortCode.normalized(idOrCode) else { return idOrCode }
        guard let rideID = try await store.rideRequest(code: code)?.rideID else { throw APIError.notFound("ride \(code)") }
        return rideID
    }

    /// The ride and how the caller relates to it; 404 when the caller may not see it, exactly
    /// as for a ride that does not exist: the answer names what was asked for, never the id a
    /// short code resolved to (that told a code that exists from one that does not).
    func visibleRide(_ idOrCode: String, to account: Account) async throws -> (RideDetail, RideRelation) {
        let id = try await rideID(from: idOrCode)
        guard let detail = try await store.rideDetail(id: id) else { throw APIError.notFound("ride \(ShortCode.normalized(idOrCode) ?? idOrCode)") }
        let party = RideRelation(account, to: detail.ride)
        guard RideAccess.may(party, .viewRide) else { throw APIError.notFound("ride \(ShortCode.normalized(idOrCode) ?? idOrCode)") }
        return (detail, party)
    }

    /// The ride named `asked`, if the caller may do `act` to it (RideRules' `RideAccess`), and
    /// how they stand to it. Another's ride answers exactly like one that does not exist (no
    /// existence oracle).
    func ride(_ asked: String, _ account: Account, for act: RideAct) async throws -> (RideRecord, RideRelation) {
        let rideID = try await self.rideID(from: asked)
        guard let ride = try await store.ride(id: rideID), RideAccess.may(RideRelation(account, to: ride), act) else {
            throw APIError.notFound("ride \(ShortCode.normalized(asked) ?? asked)")
        }
        return (ride, RideRelation(account, to: ride))
    }
}

extension Request {
    /// The caller's `Idempotency-Key`, scoped to their account (one client's key never
    /// collides with another's).
    func idempotencyKey(account: Account) throws -> IdempotencyScope? {
        guard let key = headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
        guard (1...255).contains(key.count), key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw APIError.invalidParameter("Idempotency-Key", "must be 1 to 255 visible ASCII characters")
        }
        return IdempotencyScope(accountID: account.id, key: key)
    }

    /// `?limit=`, 1...maxPageSize.
    func pageLimit() throws -> Int {
        guard let text = uri.queryParameters["limit"] else { return APILimits.defaultPageSize }
        guard let limit = Int(String(text)), (1...APILimits.maxPageSize).contains(limit) else {
            throw APIError.invalidParameter("limit", "must be an integer from 1 to \(APILimits.maxPageSize)")
        }
        return limit
    }
}
