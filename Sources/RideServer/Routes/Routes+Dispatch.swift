import Foundation
import HTTPTypes
import Hummingbird
import RideStore

/// `/dispatch`: the dispatchers' web page. Server-rendered, so it works without JavaScript;
/// with it, it follows the event stream live (see `DispatchAssets.js`). Its acts (assign,
/// cancel) are in `Routes+DispatchActs.swift`.
struct DispatcherPageRoutes<Context: RideRequestContext>: Sendable {
    let store: (any AccountStore & RideRequestStore & RideLifecycleStore & RideHistoryStore)
    let rides: RideLookup
    let limits: RateLimits
    let codes: CodeRedemption
    let sessions: WebSessions
    let drivers: DriverRoster
    let bookingRule: BookingRule
    /// Marks the session cookie Secure even without `X-Forwarded-Proto: https`.
    let secureCookies: Bool
    /// A page session's token expires this long after its last use (sliding), as on the passenger page.
    let webSessionLifetime: TimeInterval
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
        let form = SignInFormToken.issue(for: request, secure: secure(request))
        return SignInFormToken.attach(form.cookie, to: DispatchRenderer.page("login", ["error": [String](), "csrf": form.value]))
    }

    /// Takes a sign-in code (what an admin hands a new dispatcher) or a dispatcher's token.
    /// Either way the browser gets a session token of its own, named after the browser and
    /// expiring `webSessionLifetime` after its last use, like every page sign-in's: a pasted
    /// token stays the dispatcher's (the CLI's, say) and is never put in the cookie, so signing
    /// out of the page ends the page's session and nothing else. The cookie's previous token is
    /// revoked, so signing in again does not pile up tokens.
    @Sendable func login(_ request: Request, context: Context) async throws -> Response {
        try SameOrigin.check(request)
        let form = try await request.decodeForm(LoginForm.self)
        try SignInFormToken.check(form.csrf, request: request, secure: secure(request))
        let typed = (form.token ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let address = limits.clientAddress(request, context: context)
        func refuse(_ message: String, status: HTTPResponse.Status) -> Response {
            DispatchRenderer.page("login", ["error": [message], "csrf": form.csrf ?? ""], status: status)
        }
        guard !typed.isEmpty else { return refuse("Enter your sign-in code or your dispatcher token.", status: .badRequest) }
        if !typed.hasPrefix("rb_") {
            guard typed.count <= 64, let digits = SignInCodeText.normalized(typed) else {
                return refuse("That is neither a sign-in code (eight digits, like 4821 0937) nor a RideBeacon token (they start with rb_).",
                              status: .badRequest)
            }
            return try await signIn(code: digits, request: request, context: context, address: address, refuse: refuse)
        }
        // The form is a way to try tokens too, so it shares the API's budgets: taken before the
        // lookup, refunded when the token is good.
        let presented = RateLimits.tokenKey(typed)
        let reservation = try limits.reserveAuthentication(address: address, token: presented)
        return try await limits.attempt(reservation) {
            guard let token = APITokenSecret(presented: typed) else {
                reservation.failed()
                return refuse("That is not a RideBeacon token: a token is rb_ and 43 more characters. A sign-in code is eight digits.",
                              status: .unauthorized)
            }
            guard let account = try await store.authenticate(secretHash: token.hash) else {
                reservation.failed()
                return refuse("That token is unknown, revoked or expired.", status: .unauthorized)
            }
            reservation.succeeded()
            limits.authenticated(token: presented)
            guard account.role == .dispatcher else { throw PageRefusal.notADispatcher }
            let session = try await sessions.start(for: account, request: request, now: now(), lifetime: webSessionLifetime)
            try await sessions.end(DispatchSession.token(in: request, secure: secure(request)), keeping: token, reason: "signed in again", logger: context.logger)
            context.logger.info("dispatcher signed in", metadata: ["account_id": .string(account.id)])
            let cookie = DispatchSession.signInCookie(session, secure: secure(request))
            return DispatchRenderer.redirect(to: "/dispatch", cookie: cookie)
        }
    }

    /// A code of another role's account is refused before it is spent (its holder can still use
    /// it where it belongs); the code budgets are the API's (`CodeRedemption`).
    private func signIn(code digits: String, request: Request, context: Context, address: String,
                        refuse: (String, HTTPResponse.Status) -> Response) async throws -> Response {
        let reservation = try limits.reserveSignIn(address: address)
        return try await limits.attempt(reservation) {
            let secret = APITokenSecret()
            let signedIn: SignIn
            do {
                signedIn = try await codes.redeem(digits, secret: secret, reservation: reservation, expiresAt: now().addingTimeInterval(webSessionLifetime),
                                                  logger: context.logger) { account in
                    guard account.role == .dispatcher else { throw DispatcherPageRefusal.notADispatcher(account.role) }
                }
            } catch StoreError.signInRefused(let refusal) {
                return refuse(APIError(StoreError.signInRefused(refusal)).message.sentenceCased, .unauthorized)
            } catch DispatcherPageRefusal.notADispatcher(let role) {
                return refuse("That code belongs to a \(role.rawValue) account and was not used here; this page is for dispatchers.", .forbidden)
            }
            await sessions.nameDevice(of: signedIn.token, request: request)
            try await sessions.end(DispatchSession.token(in: request, secure: secure(request)), reason: "signed in again", logger: context.logger)
            context.logger.info("dispatcher signed in with a code", metadata: ["account_id": .string(signedIn.account.id)])
            let cookie = DispatchSession.signInCookie(secret, secure: secure(request))
            return DispatchRenderer.redirect(to: "/dispatch", cookie: cookie)
        }
    }

    /// Signing out ends the session's token, not just the cookie: a copy of the cookie (another
    /// tab, a stolen one) stops working at once. The session's token is the page's own (see
    /// `login`), so a token the dispatcher pasted to sign in keeps working where else it is used.
    @Sendable func logout(_ request: Request, context: Context) async throws -> Response {
        let form = try await request.decodeForm(SignOutForm.self)
        if let token = DispatchSession.token(in: request, secure: secure(request)) {
            guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
            try await sessions.end(token, reason: "sign-out", logger: context.logger)
        }
        let cookie = DispatchSession.signOutCookie(secure: secure(request))
        return DispatchRenderer.redirect(to: "/dispatch/login", cookie: cookie)
    }

    // MARK: Helpers

    /// The session's account if it is a dispatcher's; nil without a working session; 403 for
    /// anyone else.
    func dispatcherSession(_ request: Request) async throws -> (Account, APITokenSecret)? {
        guard let (account, token) = try await DispatchSession.account(for: request, secure: secure(request), sessions: sessions, limits: limits, now: now(),
                                                                       lifetime: webSessionLifetime) else { return nil }
        guard account.role == .dispatcher else { throw PageRefusal.notADispatcher }
        return (account, token)
    }

    /// Whether the browser reached us over TLS (`DispatchSession.isSecure`): the cookie is then
    /// Secure and `__Host-` named.
    func secure(_ request: Request) -> Bool {
        DispatchSession.isSecure(request, configured: secureCookies)
    }

    /// Clears a cookie whose token stopped working, so the browser does not keep sending it.
    func endedSessionCookie(_ request: Request) -> Cookie? {
        DispatchSession.token(in: request, secure: secure(request)) == nil ? nil
            : DispatchSession.signOutCookie(secure: secure(request))
    }

    func board(_ request: Request, account: Account, token: APITokenSecret, notice: String?) async throws -> DispatchBoard {
        let after = request.uri.queryParameters["after"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let size = APILimits.defaultPageSize
        // Read before the lists: the page's stream replays everything after it, so a change
        // between this read and the browser connecting is not missed (at worst seen twice).
        let lastEventID = try await store.lastEventID()
        let rides = try await store.rideDetails(RideFilter(scope: .active, limit: size + 1, after: after))
        let requests = try await store.openRideRequests(limit: size)
        // Rides confirmed by the ride word, the weaker proof, are marked so (SECURITY.md): a
        // confirmed ride's newest state change is its confirmation, one indexed row each (the
        // whole history of every ride on each refresh cost 150 ms after 10 000 events, issue 36).
        var wordConfirmed = Set<String>()
        for detail in rides.prefix(size) where detail.ride.state == .confirmed {
            let confirmation = try await store.latestEvent(rideID: detail.ride.id, kinds: [.stateChanged])
            if confirmation?.detail == RideWordPolicy.confirmationDetail { wordConfirmed.insert(detail.ride.id) }
        }
        return DispatchBoard(rides: Array(rides.prefix(size)), hasMore: rides.count > size, requests: requests, wordConfirmed: wordConfirmed,
                             freeDrivers: try await freeDrivers(), pageSize: size,
                             after: after, csrf: DispatchSession.csrfToken(for: token), dispatcher: account,
                             lastEventID: lastEventID, notice: notice, now: now())
    }
}

enum DispatcherPageRefusal: Error {
    case notADispatcher(Role)
}

extension String {
    /// "the code was used" → "The code was used." (an API message as a page's sentence).
    var sentenceCased: String {
        guard let first else { return self }
        let body = first.uppercased() + dropFirst()
        return body.hasSuffix(".") ? body : body + "."
    }
}

/// Refusals both pages share.
enum PageRefusal {
    static let notADispatcher = APIError.forbidden("Only dispatchers may use the dispatcher page. Sign in with a dispatcher's token.")
    static let staleForm = APIError.forbidden("This form does not belong to your session (it may be from before you signed in again). Reload the page and try again.")
}

extension Request {
    /// An `application/x-www-form-urlencoded` body (already size-limited by `BodyLimitMiddleware`).
    /// Our forms have a few flat fields: more than `FormLimits.maxFields`, or a bracketed key
    /// (`a[b][c]…`, which the decoder turns into a tree as deep as the body is long), is refused
    /// before the decoder builds anything.
    func decodeForm<T: Decodable>(_ type: T.Type) async throws -> T {
        let buffer = try await body.collect(upTo: APILimits.maxBodyBytes)
        let text = String(buffer: buffer)
        guard FormLimits.isFlatAndSmall(text) else {
            throw APIError(.badRequest, code: .invalidForm, "the form has more than \(FormLimits.maxFields) fields or a bracketed field name")
        }
        do {
            return try URLEncodedFormDecoder().decode(T.self, from: text)
        } catch {
            throw APIError(.badRequest, code: .invalidForm, "the form could not be read")
        }
    }
}

/// What a page form may hold.
enum FormLimits {
    /// The largest form has five fields.
    static let maxFields = 32

    /// At most `maxFields` fields, no name with a bracket (raw or %5B); values may hold anything.
    static func isFlatAndSmall(_ text: String) -> Bool {
        let fields = text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
        guard fields.count <= maxFields else { return false }
        return fields.allSatisfy { field in
            let name = Array(field.prefix { $0 != UInt8(ascii: "=") })
            return !name.contains(UInt8(ascii: "[")) && String(decoding: name, as: UTF8.self).range(of: "%5b", options: .caseInsensitive) == nil
        }
    }
}

/// The form `login` reads.
struct LoginForm: Decodable { var csrf: String?; var token: String? }

/// The form both pages' sign-out buttons send.
struct SignOutForm: Decodable { var csrf: String? }
