import Foundation
import HTTPTypes
import Hummingbird
import RideStore

/// `/dispatch`: the dispatchers' web page. Server-rendered, so it works without JavaScript;
/// with it, it follows the event stream live (see `DispatchAssets.js`). Its acts (assign,
/// cancel) are in `Routes+DispatchActs.swift`.
struct DispatcherPageRoutes<Context: RideRequestContext>: Sendable {
    let store: any Store
    let rides: RideLookup
    let limits: RateLimits
    let codes: CodeRedemption
    let bookingRule: BookingRule
    /// Marks the session cookie Secure even without `X-Forwarded-Proto: https`.
    let secureCookies: Bool
    let now: @Sendable () -> Date

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.get("/dispatch", use: dispatchPage)
        routes.get("/dispatch/board", use: dispatchBoardFragment)
        routes.get("/dispatch/login", use: loginPage)
        routes.post("/dispatch/login", use: login)
        routes.post("/dispatch/logout", use: logout)
        routes.get("/dispatch/rides/{id}/cancel", use: cancelRideConfirmation)
        routes.post("/dispatch/rides/{id}/cancel", use: cancelFromPage)
        routes.get("/dispatch/requests/{id}/cancel", use: cancelRequestConfirmation)
        routes.post("/dispatch/requests/{id}/cancel", use: cancelRequestFromPage)
        routes.post("/dispatch/requests/{id}/assign", use: assignFromPage)
        routes.get("/dispatch/assets/dispatch.css", use: { _, _ in DispatchRenderer.response(DispatchAssets.css, contentType: "text/css; charset=utf-8") })
        routes.get("/dispatch/assets/dispatch.js", use: { _, _ in DispatchRenderer.response(DispatchAssets.js, contentType: "text/javascript; charset=utf-8") })
    }

    @Sendable func dispatchPage(_ request: Request, context: Context) async throws -> Response {
        guard let (account, token) = try await dispatcherSession(request) else {
            return DispatchRenderer.redirect(to: "/dispatch/login", cookie: endedSessionCookie(request))
        }
        var notice: String?
        if let id = request.uri.queryParameters["cancelled"].map(String.init), let detail = try await store.rideDetail(id: id) {
            notice = "The ride for \(detail.passenger.name) is \(detail.ride.state.rawValue)."
        } else if let id = request.uri.queryParameters["request"].map(String.init), let record = try await store.rideRequest(id: id) {
            notice = record.status == .cancelled ? "The request of \(record.passengerName) is cancelled."
                : "The request of \(record.passengerName) is \(record.status.rawValue)."
        } else if let id = request.uri.queryParameters["assigned"].map(String.init), let detail = try await store.rideDetail(id: id) {
            notice = "\(detail.driver.name) now has the ride for \(detail.passenger.name) (code \(detail.ride.shortCode ?? "—"))."
        }
        return DispatchRenderer.page("dispatch", try await board(request, account: account, token: token, notice: notice))
    }

    /// The tables alone, for the page's script; 401 instead of a redirect so the script knows.
    @Sendable func dispatchBoardFragment(_ request: Request, context: Context) async throws -> Response {
        guard let (account, token) = try await dispatcherSession(request) else {
            throw APIError.unauthenticated("sign in at /dispatch/login")
        }
        return DispatchRenderer.page("board", try await board(request, account: account, token: token, notice: nil))
    }

    @Sendable func loginPage(_ request: Request, context: Context) async throws -> Response {
        DispatchRenderer.page("login", ["error": [String]()])
    }

    @Sendable func login(_ request: Request, context: Context) async throws -> Response {
        try SameOrigin.check(request)
        let form = try await request.decodeForm(LoginForm.self)
        // The form is a way to try tokens too, so it shares the API's budgets: taken before the
        // lookup, refunded when the token is good.
        let address = limits.clientAddress(request, context: context)
        let typed = (form.token ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let presented = RateLimits.tokenKey(typed)
        let reservation = try limits.reserveAuthentication(address: address, token: presented)
        return try await limits.attempt(reservation) {
            guard let token = APITokenSecret(presented: typed) else {
                reservation.failed()
                return DispatchRenderer.page("login", ["error": ["That is not a RideBeacon token; tokens start with rb_."]], status: .unauthorized)
            }
            guard let account = try await store.authenticate(secretHash: token.hash) else {
                reservation.failed()
                return DispatchRenderer.page("login", ["error": ["That token is unknown, revoked or expired."]], status: .unauthorized)
            }
            guard account.role == .dispatcher else { throw PageRefusal.notADispatcher }
            limits.authenticated(token: presented)
            context.logger.info("dispatcher signed in", metadata: ["account_id": .string(account.id)])
            let cookie = DispatchSession.signInCookie(token, secure: DispatchSession.isSecure(request, configured: secureCookies))
            return DispatchRenderer.redirect(to: "/dispatch", cookie: cookie)
        }
    }

    @Sendable func logout(_ request: Request, context: Context) async throws -> Response {
        let form = try await request.decodeForm(SignOutForm.self)
        if let token = DispatchSession.token(in: request), !DispatchSession.csrfMatches(form.csrf, token: token) {
            throw PageRefusal.staleForm
        }
        let cookie = DispatchSession.signOutCookie(secure: DispatchSession.isSecure(request, configured: secureCookies))
        return DispatchRenderer.redirect(to: "/dispatch/login", cookie: cookie)
    }

    // MARK: Helpers

    /// The session's account if it is a dispatcher's; nil without a working session; 403 for
    /// anyone else.
    func dispatcherSession(_ request: Request) async throws -> (Account, APITokenSecret)? {
        guard let (account, token) = try await DispatchSession.account(for: request, store: store) else { return nil }
        guard account.role == .dispatcher else { throw PageRefusal.notADispatcher }
        return (account, token)
    }

    /// Clears a cookie whose token stopped working, so the browser does not keep sending it.
    func endedSessionCookie(_ request: Request) -> Cookie? {
        DispatchSession.token(in: request) == nil ? nil
            : DispatchSession.signOutCookie(secure: DispatchSession.isSecure(request, configured: secureCookies))
    }

    func board(_ request: Request, account: Account, token: APITokenSecret, notice: String?) async throws -> DispatchBoard {
        let after = request.uri.queryParameters["after"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let size = APILimits.defaultPageSize
        // Read before the lists: the page's stream replays everything after it, so a change
        // between this read and the browser connecting is not missed (at worst seen twice).
        let lastEventID = try await store.lastEventID()
        let rides = try await store.rideDetails(RideFilter(scope: .active, limit: size + 1, after: after))
        let requests = try await store.openRideRequests(limit: size)
        // Rides confirmed by the ride word, the weaker proof, are marked so (SECURITY.md).
        var wordConfirmed = Set<String>()
        for detail in rides.prefix(size) where detail.ride.state == .confirmed {
            let confirmation = try await store.events(rideID: detail.ride.id, after: 0).last { $0.state == .confirmed && $0.kind.isStateChange }
            if confirmation?.detail == RideWordPolicy.confirmationDetail { wordConfirmed.insert(detail.ride.id) }
        }
        return DispatchBoard(rides: Array(rides.prefix(size)), hasMore: rides.count > size, requests: requests, wordConfirmed: wordConfirmed,
                             freeDrivers: try await freeDrivers(), pageSize: size,
                             after: after, csrf: DispatchSession.csrfToken(for: token), dispatcher: account,
                             lastEventID: lastEventID, notice: notice, now: now())
    }
}

/// Refusals both pages share.
enum PageRefusal {
    static let notADispatcher = APIError.forbidden("Only dispatchers may use the dispatcher page. Sign in with a dispatcher's token.")
    static let staleForm = APIError.forbidden("This form does not belong to your session (it may be from before you signed in again). Reload the page and try again.")
}

extension Request {
    /// An `application/x-www-form-urlencoded` body (already size-limited by `BodyLimitMiddleware`).
    func decodeForm<T: Decodable>(_ type: T.Type) async throws -> T {
        let buffer = try await body.collect(upTo: APILimits.maxBodyBytes)
        do {
            return try URLEncodedFormDecoder().decode(T.self, from: String(buffer: buffer))
        } catch {
            throw APIError(.badRequest, code: .invalidForm, "the form could not be read")
        }
    }
}

/// The form `login` reads.
struct LoginForm: Decodable { var token: String? }

/// The form both pages' sign-out buttons send.
struct SignOutForm: Decodable { var csrf: String? }
