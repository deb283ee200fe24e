import Foundation
import HTTPTypes
import Hummingbird
import RideStore

/// Resolves `Authorization: Bearer rb_...` to an account, or answers 401. Every `/v1` route
/// sits behind it; roles are checked by the routes themselves. The dispatcher page's session
/// cookie is accepted instead of the header on the dispatcher event stream only: that is the
/// one API call the page's EventSource makes, and EventSource cannot set headers. Likewise the
/// passenger page's cookie on one ride's event stream (the ride route checks it is theirs), and
/// on her position report with the page's CSRF token (`PassengerSession.mayAuthenticate`).
/// Failed authentications are rate limited per client address (IPv6 by /64) and per presented
/// token, and the budget is taken before the lookup (refunded only when the token is good); once
/// either is used up, attempts are answered 429 before any database lookup.
struct AuthMiddleware: RouterMiddleware {
    let store: any Store
    let limits: RateLimits
    /// Bearer tokens' accounts for a second (`AuthenticationCache`); cookies are looked up.
    let authentications: AuthenticationCache
    /// Whether page cookies are always Secure (`RideServerConfiguration.secureCookies`): their
    /// names then carry `__Host-`.
    let secureCookies: Bool

    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        // Only a refusal or a first lookup needs the client's address: a known-good token's
        // request does not pay for parsing it (issue 39).
        let address = { limits.clientAddress(request, context: context) }
        let secure = DispatchSession.isSecure(request, configured: secureCookies)
        let presented = request.headers[.authorization]
            ?? (request.method == .get && request.uri.path == "/v1/events" ? DispatchSession.token(in: request, secure: secure)?.text : nil)
            ?? (PassengerSession.mayAuthenticate(request) ? PassengerSession.token(in: request, secure: secure)?.text : nil)
        let tokenKey = presented.map(RateLimits.tokenKey)
        let account: Account
        let tokenHash: Data
        if let tokenKey {
            var known = limits.isKnownGood(tokenKey)
            var first = false
            if !known {
                switch await limits.joinLookup(tokenKey) {
                case nil: first = true
                case .good?: known = true
                case .bad?: throw APIError.unauthenticated("unknown, revoked or expired token")
                case .undecided?: break
                }
            }
            if known {
                do {
                    let found = try await authenticate(request, secure: secure)
                    account = found.0
                    tokenHash = found.1
                } catch let error as APIError where error.code == .unauthenticated {
                    // A token that worked lately stopped working: counted after the fact.
                    limits.failedAfter(address: address(), token: tokenKey)
                    throw error
                }
            } else {
                var outcome = RateLimits.LookupOutcome.undecided
                defer { if first { limits.finishLookup(tokenKey, outcome) } }
                // Taken before the lookup, refunded when the token is good (`AuthenticationReservation`).
                let reservation = try limits.reserveAuthentication(address: address(), token: tokenKey)
                let found = try await limits.attempt(reservation) {
                    do {
                        let found = try await authenticate(request, secure: secure)
                        reservation.succeeded()
                        return found
                    } catch let error as APIError where error.code == .unauthenticated {
                        reservation.failed()
                        outcome = .bad
                        throw error
                    }
                }
                outcome = .good
                account = found.0
                tokenHash = found.1
                limits.authenticated(token: tokenKey)
            }
        } else {
            // Only presented credentials count: a request with none is not a guess.
            try limits.checkAddress(address())
            let found = try await authenticate(request, secure: secure)
            account = found.0
            tokenHash = found.1
        }
        var context = context
        context.account = account
        context.tokenKey = tokenKey
        context.tokenHash = tokenHash
        context.logger[metadataKey: "account_id"] = .string(account.id)
        return try await next(request, context)
    }

    private func authenticate(_ request: Request, secure: Bool) async throws -> (Account, Data) {
        if let header = request.headers[.authorization] {
            return try await bearer(header)
        }
        if request.method == .get, request.uri.path == "/v1/events", let token = DispatchSession.token(in: request, secure: secure) {
            guard let found = try await store.authenticate(secretHash: token.hash) else {
                throw APIError.unauthenticated("the session has ended (token unknown, revoked or expired); sign in again")
            }
            guard found.role == .dispatcher else { throw APIError.forbidden("only a dispatcher may follow all rides with a session cookie") }
            return (found, token.hash)
        }
        if PassengerSession.mayAuthenticate(request), let token = PassengerSession.token(in: request, secure: secure) {
            guard let found = try await store.authenticate(secretHash: token.hash) else {
                throw APIError.unauthenticated("the session has ended (token unknown, revoked or expired); sign in again")
            }
            guard found.role == .passenger else { throw APIError.forbidden("only a passenger may follow a ride with the passenger page's cookie") }
            guard PassengerSession.writeCarriesCSRF(request, token: token) else {
                throw APIError(.forbidden, code: .crossSiteForm,
                               "a position sent with the passenger page's cookie needs the page's CSRF token in X-CSRF-Token; reload the page")
            }
            return (found, token.hash)
        }
        throw APIError.unauthenticated("send Authorization: Bearer <token>")
    }

    private func bearer(_ header: String) async throws -> (Account, Data) {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthenticated("the Authorization header must be Bearer <token>")
        }
        guard let secret = APITokenSecret(presented: parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw APIError.unauthenticated("malformed token")
        }
        guard let account = try await authentications.account(secretHash: secret.hash, lookUp: store.authenticate) else {
            throw APIError.unauthenticated("unknown, revoked or expired token")
        }
        return (account, secret.hash)
    }
}
