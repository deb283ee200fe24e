import APIBodies
import Foundation
import HTTPTypes
import Hummingbird
import Phrasebook
import RideRules
import RideStore
import RideWire

/// `/`: the passengers' web page, for anyone without a Linux terminal. Server-rendered, so it
/// works without JavaScript; with it, it follows the ride live (`PassengerAssets.js`). Radio
/// guidance stays in the CLI; the page says how to start it.
struct PassengerPageRoutes<Context: RideRequestContext>: Sendable {
    let store: (any AccountStore & RideRequestStore & RideLifecycleStore & PlaceStore & RideHistoryStore)
    let limits: RateLimits
    let codes: CodeRedemption
    let sessions: WebSessions
    let bookingRule: BookingRule
    /// Marks the session cookie Secure even without `X-Forwarded-Proto: https`.
    let secureCookies: Bool
    /// A sign-in's token expires this long after its last use (sliding).
    let webSessionLifetime: TimeInterval
    let now: @Sendable () -> Date

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.get("/", use: passengerHome)
        routes.post("/sign-in", use: passengerSignIn)
        routes.post("/sign-out", use: passengerSignOut)
        routes.post("/ride/request", use: passengerRequest)
        routes.get("/ride/status", use: passengerStatus)
        routes.post("/language", use: passengerLanguage)
        addPlaceRoutes(to: routes)
        routes.get("/ride/cancel", use: passengerCancelConfirmation)
        routes.post("/ride/cancel", use: passengerCancel)
        routes.get("/assets/passenger.css", use: { _, _ in DispatchRenderer.response(PassengerAssets.css, contentType: "text/css; charset=utf-8") })
        routes.get("/assets/passenger.js", use: { _, _ in DispatchRenderer.response(PassengerAssets.js, contentType: "text/javascript; charset=utf-8") })
    }

    @Sendable func passengerHome(_ request: Request, context: Context) async throws -> Response {
        guard let (passenger, token) = try await passengerSession(request) else {
            let form = SignInFormToken.issue(for: request, secure: secure(request))
            let empty: [String: Any] = ["code": "", "hasErrors": false, "errors": [Any](), "codeError": [String](), "csrf": form.value]
            return SignInFormToken.attach(form.cookie, to: passengerRender("p-signin", empty))
        }
        let book = await book(for: request, passenger: passenger)
        let notice = request.uri.queryParameters["cancelled"] != nil ? book(.pageCancelledNotice) : nil
        return passengerRender("p-home", try await passengerPage(passenger, token: token, notice: notice, book: book))
    }

    @Sendable func passengerSignIn(_ request: Request, context: Context) async throws -> Response {
        do { try SameOrigin.check(request) } catch {
            throw APIError(.forbidden, code: .crossSiteForm, "This sign-in form was sent from another site. Open / on this server and sign in there.")
        }
        let form = try await request.decodeForm(CodeForm.self)
        try SignInFormToken.check(form.csrf, request: request, secure: secure(request))
        let typed = form.code ?? ""
        func refuse(_ message: String, status: HTTPResponse.Status) -> Response {
            let page: [String: Any] = ["code": typed, "hasErrors": true, "errors": [["fieldID": "code", "message": message]],
                                       "codeError": [message], "csrf": form.csrf ?? ""]
            return passengerRender("p-signin", page, status: status)
        }
        // Codes are guessable by brute force: the page shares the API's sign-in budgets, taken
        // before the lookup and refunded on success (`AuthenticationReservation`).
        let address = limits.clientAddress(request, context: context)
        let reservation = try limits.reserveSignIn(address: address)
        return try await limits.attempt(reservation) {
            guard !typed.trimmingCharacters(in: .whitespaces).isEmpty else {
                return refuse("Enter your sign-in code", status: .badRequest)
            }
            guard typed.count <= 64, let digits = SignInCodeText.normalized(typed) else {
                return refuse("Sign-in code must be eight digits, like 4821 0937", status: .badRequest)
            }
            let secret = APITokenSecret()
            let signedIn: SignIn
            do {
                // A code of another role's account is refused before it is spent: its holder can
                // still use it where it belongs (the CLI).
                signedIn = try await codes.redeem(digits, secret: secret, reservation: reservation, expiresAt: now().addingTimeInterval(webSessionLifetime),
                                           logger: context.logger) { account in
                    guard account.role == .passenger else { throw PassengerPageRefusal.notAPassenger(account.role) }
                }
            } catch StoreError.signInRefused(let refusal) {
                return refuse(APIError(StoreError.signInRefused(refusal)).message, status: .unauthorized)
            } catch PassengerPageRefusal.notAPassenger(let role) {
                return refuse("That code belongs to a \(role.rawValue) account and was not used here; this page is for passengers", status: .forbidden)
            }
            // Named after the browser; the cookie's previous token ends (no pile of tokens).
            await sessions.nameDevice(of: signedIn.token, request: request)
            try await sessions.end(PassengerSession.token(in: request, secure: secure(request)), reason: "signed in again", logger: context.logger)
            return DispatchRenderer.redirect(to: "/", cookie: PassengerSession.signInCookie(secret, secure: DispatchSession.isSecure(request, configured: secureCookies)))
        }
    }

    /// Signing out ends the session's token, not just the cookie: a copy of the cookie (another
    /// tab, a stolen one) stops working at once.
    @Sendable func passengerSignOut(_ request: Request, context: Context) async throws -> Response {
        let form = try await request.decodeForm(SignOutForm.self)
        if let token = PassengerSession.token(in: request, secure: secure(request)) {
            guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
            try await sessions.end(token, reason: "sign-out", logger: context.logger)
        }
        return DispatchRenderer.redirect(to: "/", cookie: PassengerSession.signOutCookie(secure: DispatchSession.isSecure(request, configured: secureCookies)))
    }

    @Sendable func passengerRequest(_ request: Request, context: Context) async throws -> Response {
        let (passenger, token) = try await passengerSessionOrFail(request)
        let form = try await request.decodeForm(RideRequestForm.self)
        guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
        var typed = PassengerPage.RequestForm(pickup: form.pickup ?? "", dropoff: form.dropoff ?? "", notes: form.notes ?? "")
        let places = try await store.savedPlaces(accountID: passenger.id)
        func address(_ text: String) -> String {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return places.first { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame }?.address ?? trimmed
        }
        var errors: [PassengerPage.FieldError] = []
        let book = await book(for: request, passenger: passenger)
        func check(_ value: String, id: String, label: String, empty: String?, multiline: Bool = false) -> [String] {
            if value.isEmpty {
                guard let empty else { return [] }
                errors.append(.init(fieldID: id, message: empty))
                return [empty]
            }
            do { _ = try FreeText.clean(value, field: id, multiline: multiline) } catch {
                let message = book(.pageErrorTooLong, ["field": .text(label), "count": .count(BodyLimits.maxTextLength)])
                errors.append(.init(fieldID: id, message: message))
                return [message]
            }
            return []
        }
        let pickup = address(typed.pickup), dropoff = address(typed.dropoff)
        let notes = typed.notes.replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        typed.pickupError = check(pickup, id: "pickup", label: book(.pagePickupLabel), empty: book(.pageErrorPickupEmpty))
        typed.dropoffError = check(dropoff, id: "dropoff", label: book(.pageDropoffLabel), empty: book(.pageErrorDropoffEmpty))
        typed.notesError = check(notes, id: "notes", label: book(.pageErrorNotesField), empty: nil, multiline: true)
        if !errors.isEmpty {
            let page = PassengerPage(passenger: passenger, csrf: DispatchSession.csrfToken(for: token), lastEventID: try await store.lastEventID(),
                                     places: places, current: nil, form: typed, errors: errors, book: book)
            return passengerRender("p-home", page, status: .badRequest)
        }
        let new = NewRideRequest(passengerName: passenger.displayName, pickup: pickup, dropoff: dropoff, accessibilityNotes: notes.isEmpty ? nil : notes)
        do {
            _ = try await store.createRideRequest(new, passengerID: passenger.id, rule: bookingRule, idempotency: nil)
        } catch StoreError.busy {
            // A second tab or a double submit: the open ride is what the page shows next.
            return DispatchRenderer.redirect(to: "/")
        }
        return DispatchRenderer.redirect(to: "/")
    }

    /// The state block alone, for the page's script; 401 (not a redirect) so the script knows.
    @Sendable func passengerStatus(_ request: Request, context: Context) async throws -> Response {
        let (passenger, _) = try await passengerSessionOrFail(request)
        let book = await book(for: request, passenger: passenger)
        let current = try await currentRide(of: passenger).map { $0.view(book) }
        // Issue 37 (7): cancelled by someone else while she watched: who and why at once, and
        // the way to the same ride again (the page then has the filled form), not "no open ride".
        let offer = current == nil ? try await askAgainOffer(of: passenger, book: book) : nil
        // Completed while she watched: said as the reload says it, not "You have no open ride".
        let completed = current == nil && offer == nil ? try await completedRideNotice(of: passenger, book: book) : nil
        return passengerRender("p-status", ["current": current.map { [$0] } ?? [], "t": PassengerPage.words(book),
                                            "cancelled": offer.map { [$0.cancelled] } ?? [String](),
                                            "completed": completed.map { [$0] } ?? [String]()] as [String: Any])
    }

    @Sendable func passengerCancelConfirmation(_ request: Request, context: Context) async throws -> Response {
        let (passenger, token) = try await passengerSessionOrFail(request)
        let book = await book(for: request, passenger: passenger)
        guard let current = try await currentRide(of: passenger)?.view(book) else { return DispatchRenderer.redirect(to: "/") }
        return passengerRender("p-cancel", ["code": current.code, "sentence": current.sentence, "csrf": DispatchSession.csrfToken(for: token),
                                            "t": PassengerPage.words(book, code: current.code), "lang": book.language.rawValue] as [String: Any])
    }

    @Sendable func passengerCancel(_ request: Request, context: Context) async throws -> Response {
        let (passenger, token) = try await passengerSessionOrFail(request)
        let form = try await request.decodeForm(CancelConfirmForm.self)
        guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
        guard form.confirm == "yes" else { return DispatchRenderer.redirect(to: "/ride/cancel") }
        guard let current = try await currentRide(of: passenger) else {
            throw APIError.conflict(.cancelled, "You have no open ride to cancel; it may have finished or been cancelled already.")
        }
        do {
            switch current {
            case .waiting(let open):
                try RideAccess.require(RideRelation(passenger, toRequest: open), .cancelRequest, on: "ride request \(open.id)")
                _ = try await store.cancelRideRequest(id: open.id, by: passenger.id, reason: "cancelled by the passenger on the passenger page", idempotency: nil)
            case .riding(let detail, _):
                try RideAccess.require(RideRelation(passenger, to: detail.ride), .cancelRide, on: "ride \(detail.ride.id)")
                _ = try await store.transition(rideID: detail.ride.id, to: .cancelled, by: passenger.id,
                                               detail: "cancelled by the passenger on the passenger page", idempotency: nil)
            }
        } catch StoreError.illegalTransition(let from, _) {
            throw APIError.conflict(from, "Your ride is already \(from.rawValue); there is nothing to cancel.")
        }
        return DispatchRenderer.redirect(to: "/?cancelled=1")
    }

    /// The language picker (on the signed-in page): kept with her account, so the page speaks
    /// it on any browser, and in a cookie. Like every form after sign-in it carries the
    /// session's CSRF token, checked whatever Origin and Referer say (issue 36: a post with
    /// neither skipped the check).
    @Sendable func passengerLanguage(_ request: Request, context: Context) async throws -> Response {
        let (passenger, token) = try await passengerSessionOrFail(request)
        let form = try await request.decodeForm(LanguageForm.self)
        guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
        guard let language = form.language.flatMap(Language.init(rawValue:)) else {
            throw APIError(.badRequest, code: .invalidField, "language must be one of \(Language.codes)")
        }
        try await store.setAccountLanguage(accountID: passenger.id, language: language.rawValue)
        return DispatchRenderer.redirect(to: "/", cookie: PassengerLanguage.cookie(language, secure: DispatchSession.isSecure(request, configured: secureCookies)))
    }

    // MARK: Helpers

    enum PassengerPageRefusal: Error {
        case notAPassenger(Role)
    }

    /// Whether the browser reached us over TLS: the session cookie is then Secure and `__Host-` named.
    func secure(_ request: Request) -> Bool {
        DispatchSession.isSecure(request, configured: secureCookies)
    }

    /// The signed-in passenger; the session's expiry slides forward with use.
    func passengerSession(_ request: Request) async throws -> (Account, APITokenSecret)? {
        try await PassengerSession.passenger(for: request, secure: secure(request), sessions: sessions, limits: limits, now: now(), lifetime: webSessionLifetime)
    }

    enum PassengerCurrent {
        case waiting(RideRequestRecord)
        /// `guide`: whether the passenger's guide reported in (`GuideState`).
        case riding(RideDetail, guide: PassengerPage.GuideState)

        func view(_ book: Phrasebook = .english) -> PassengerPage.Current {
            switch self {
            case .waiting(let request): PassengerPage.Current(request: request, book: book)
            case .riding(let detail, let guide): PassengerPage.Current(ride: detail, guide: guide, book: book)
            }
        }
    }

    func passengerSessionOrFail(_ request: Request) async throws -> (Account, APITokenSecret) {
        guard let session = try await passengerSession(request) else {
            throw APIError.unauthenticated("your session has ended; sign in again at /")
        }
        return session
    }

    /// The passenger's open request or active ride. One ride at a time means it can only be
    /// their newest request, so only that one is looked at.
    /// What the passenger's guide last reported on this ride (`guide_started`, `guide_stopped`).
    func guideState(rideID: String) async throws -> PassengerPage.GuideState {
        // One indexed row, not the whole history on every view (issue 36).
        let last = try await store.latestEvent(rideID: rideID, kinds: [.guideStarted, .guideStopped])
        switch last?.kind {
        case .guideStarted?: return .guiding
        case .guideStopped?: return .stopped
        default: return .notStarted
        }
    }

    /// The passenger's newest request. Requests come oldest first; this walks to the last page
    /// (a page per hundred past requests).
    func newestRequest(of passenger: Account) async throws -> RideRequestRecord? {
        var newest: RideRequestRecord?
        var after: String?
        while true {
            let page = try await store.rideRequests(passengerID: passenger.id, limit: APILimits.maxPageSize, after: after)
            guard let last = page.last else { break }
            newest = last
            if page.count < APILimits.maxPageSize { break }
            after = last.id
        }
        return newest
    }

    func currentRide(of passenger: Account) async throws -> PassengerCurrent? {
        guard let newest = try await newestRequest(of: passenger) else { return nil }
        switch newest.status {
        case .open:
            return .waiting(newest)
        case .accepted:
            guard let rideID = newest.rideID, let detail = try await store.rideDetail(id: rideID),
                  ![.completed, .cancelled].contains(detail.ride.state) else { return nil }
            return .riding(detail, guide: detail.ride.state == .arrived ? try await guideState(rideID: rideID) : .notStarted)
        case .cancelled:
            return nil
        }
    }

    func passengerPage(_ passenger: Account, token: APITokenSecret, notice: String?, book: Phrasebook = .english) async throws -> PassengerPage {
        // Read before the ride: the stream resumes after it, so no change in between is missed.
        let lastEventID = try await store.lastEventID()
        var page = PassengerPage(passenger: passenger, csrf: DispatchSession.csrfToken(for: token), lastEventID: lastEventID,
                                 places: try await store.savedPlaces(accountID: passenger.id),
                                 current: try await currentRide(of: passenger)?.view(book), notice: notice, book: book)
        page.accountNotices = try await otherSignIns(of: passenger, current: token, book: book)
        // Issue 25: cancelled by someone else: who and why, and the same ride again in one button.
        if page.current.isEmpty, let offer = try await askAgainOffer(of: passenger, book: book) {
            page.notice.append(offer.notice)
            page.form = [offer.form]
        } else if page.current.isEmpty, let completed = try await completedRideNotice(of: passenger, book: book) {
            page.notice.append(completed)
        }
        return page
    }

    /// The rider is told of every other sign-in to their account in the last 7 days (a code
    /// redeemed elsewhere, a token an admin made), still working or not, so a sign-in they did
    /// not make does not go unseen.
    /// Each is said as what it is, in her language: a named device (the name a client gave at
    /// sign-in), or a token with none (an administrator's, or a client that gave no name), still
    /// working or since signed out. (It said "on another device or browser" of the token an
    /// administrator made with her account, and of her own CLI sign-in, in English.)
    func otherSignIns(of account: Account, current: APITokenSecret, book: Phrasebook) async throws -> [String] {
        let currentID = try await store.token(secretHash: current.hash)?.id
        let since = now().addingTimeInterval(-7 * 86_400)
        return try await store.tokens(accountID: account.id).filter { $0.id != currentID && $0.createdAt > since }.map { token in
            let when: PhraseValue = .text(String(WireDates.format(token.createdAt).prefix(16)).replacingOccurrences(of: "T", with: " "))
            let ended = token.revokedAt != nil
            guard let device = token.deviceName, !device.isEmpty else {
                return book(ended ? .historyOtherSignInEnded : .historyOtherSignIn, ["when": when])
            }
            return book(ended ? .historyOtherSignInDeviceEnded : .historyOtherSignInDevice, ["when": when, "device": .text(device)])
        }
    }

    func passengerRender(_ template: String, _ context: Any, status: HTTPResponse.Status = .ok) -> Response {
        let html = PassengerTemplates.library.render(context, withTemplate: template) ?? ""
        return DispatchRenderer.response(html, contentType: "text/html; charset=utf-8", status: status)
    }
}

/// The form `passengerSignIn` reads.
struct CodeForm: Decodable { var csrf: String?; var code: String? }

/// The form `passengerRequest` reads.
struct RideRequestForm: Decodable { var csrf: String?; var pickup: String?; var dropoff: String?; var notes: String? }

/// The form `passengerCancel` reads.
struct CancelConfirmForm: Decodable { var csrf: String?; var confirm: String? }
