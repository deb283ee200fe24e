import Foundation
import HTTPTypes
import Hummingbird
import RideStore

/// The handlers' shared dependencies. Routes live in `Routes+<Resource>.swift` extensions, each
/// adding its resource's endpoints (`Routes+Dispatch.swift` is the dispatcher page).
struct RideAPI: Sendable {
    let store: any Store
    let hub: EventHub
    let metrics: ServerMetrics
    /// "sqlite" or "postgresql", for /health.
    let databaseKind: String
    /// Marks the dispatcher session cookie Secure even without `X-Forwarded-Proto: https`.
    var secureCookies = false
    var touch = TouchProofConfiguration()
    var locator = LocatorConfiguration()
    var bookingRule = BookingRule.oneRideAtATime
    var signInKey = SignInKey.ephemeral()
    var webSessionLifetime: TimeInterval = 12 * 3600
    let limits: RateLimits
    /// The server's clock (tests step it).
    let now: @Sendable () -> Date

    /// The one place a ride becomes a response: the key (and its period) only when `showKey`.
    func rideView(_ detail: RideDetail, showKey: Bool) -> Ride {
        var view = Ride(detail, showKey: showKey, identityPeriod: touch.identityPeriod)
        view.stuck = RideWatch.isStuck(detail.ride, now: now())
        return view
    }

    /// Runs a booking; a one-ride-at-a-time refusal names the held ride by its short code, so
    /// the person hears which ride is in the way.
    func booking<T>(_ body: () async throws -> T) async throws -> T {
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
            if let code {
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

    /// The caller's `Idempotency-Key`, scoped to their account (one client's key never
    /// collides with another's).
    func idempotencyKey(_ request: Request, account: Account) throws -> IdempotencyScope? {
        guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
        guard (1...255).contains(key.count), key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw APIError.invalidParameter("Idempotency-Key", "must be 1 to 255 visible ASCII characters")
        }
        return IdempotencyScope(accountID: account.id, key: key)
    }

    /// `?limit=`, 1...maxPageSize.
    func pageLimit(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters["limit"] else { return APILimits.defaultPageSize }
        guard let limit = Int(String(text)), (1...APILimits.maxPageSize).contains(limit) else {
            throw APIError.invalidParameter("limit", "must be an integer from 1 to \(APILimits.maxPageSize)")
        }
        return limit
    }
}

/// Registers routes and remembers which methods each path has, so other methods on a known
/// path are answered 405 with `Allow` instead of 404.
final class RouteCatalog: @unchecked Sendable {
    // Only touched while the router is built, on one task.
    private(set) var methodsByPath: [String: [HTTPRequest.Method]] = [:]

    func note(_ path: String, _ method: HTTPRequest.Method) {
        methodsByPath[path, default: []].append(method)
    }

    /// Adds a 405 responder for every common method a known path lacks.
    func addMethodNotAllowed(to router: Router<RideContext>) {
        for (path, allowed) in methodsByPath {
            for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] where !allowed.contains(method) {
                router.on(RouterPath(stringLiteral: path), method: method) { _, _ -> Response in
                    throw APIError.methodNotAllowed(method, allowed: allowed)
                }
            }
        }
    }
}

/// A router group that records what it registers in a `RouteCatalog`.
struct RouteRegistrar {
    let group: RouterGroup<RideContext>
    let prefix: String
    let catalog: RouteCatalog

    func get(_ path: String, use handler: @escaping @Sendable (Request, RideContext) async throws -> some ResponseGenerator) {
        catalog.note(prefix + path, .get)
        group.get(RouterPath(stringLiteral: path), use: handler)
    }

    func post(_ path: String, use handler: @escaping @Sendable (Request, RideContext) async throws -> some ResponseGenerator) {
        catalog.note(prefix + path, .post)
        group.post(RouterPath(stringLiteral: path), use: handler)
    }
}
