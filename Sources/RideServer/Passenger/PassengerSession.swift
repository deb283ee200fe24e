import Foundation
import HTTPTypes
import Hummingbird
import RideStore

/// A passenger's browser session on `/`: the token a sign-in code was exchanged for, kept in
/// an HttpOnly, SameSite=Strict cookie exactly like the dispatcher page's (see
/// `DispatchSession`), under its own name so one browser can hold both roles. Forms carry the
/// same kind of session-bound CSRF token.
enum PassengerSession {
    static let cookieName = "rb_passenger"

    /// `__Host-rb_passenger` over TLS, the bare name over plain HTTP (see `DispatchSession`).
    static func cookieName(secure: Bool) -> String { SessionCookie.name(cookieName, secure: secure) }

    static func token(in request: Request, secure: Bool) -> APITokenSecret? {
        SessionCookie.token(named: cookieName, in: request, secure: secure)
    }

    /// The signed-in passenger, or nil without a cookie or when its token no longer works
    /// (revoked, or expired by the server's clock). A page sign-in's token expires `lifetime`
    /// after its last use: its expiry moves forward once it is more than a minute old.
    /// The lookup takes from the authentication budgets like any presented token (429 when spent).
    static func passenger(for request: Request, secure: Bool, sessions: WebSessions, limits: RateLimits, now: Date,
                          lifetime: TimeInterval) async throws -> (Account, APITokenSecret)? {
        guard let session = try await SessionCookie.session(named: cookieName, in: request, secure: secure, sessions: sessions,
                                                            limits: limits, now: now, lifetime: lifetime),
              session.0.role == .passenger else { return nil }
        return session
    }

    static func signInCookie(_ token: APITokenSecret, secure: Bool) -> Cookie {
        Cookie(name: cookieName(secure: secure), value: token.text, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    static func signOutCookie(secure: Bool) -> Cookie {
        Cookie(name: cookieName(secure: secure), value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// Whether this request may use the cookie instead of `Authorization`: only one ride's event
    /// stream, the one GET the page's EventSource makes (it cannot set headers), and the page's
    /// report of her position (`PUT /v1/rides/{id}/position`, issue 35), which must also carry
    /// the session's CSRF token in `csrfHeader` (`writeCarriesCSRF`); so must the page's acts
    /// at the kerb (issue 37, point 2): asking the driver to come, for a sound, a message.
    static func mayAuthenticate(_ request: Request) -> Bool {
        let parts = request.uri.path.split(separator: "/")
        guard parts.count == 4, parts[0] == "v1", parts[1] == "rides" else { return false }
        return (request.method == .get && parts[3] == "events") || (request.method == .put && parts[3] == "position")
            || (request.method == .post && kerbActs.contains(String(parts[3])))
    }

    /// The page's posts at the kerb, each with the session's CSRF token.
    static let kerbActs: Set<String> = ["come", "locator", "messages"]

    /// The header the page's script sends its session's CSRF token in.
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// A GET changes nothing; a write with the cookie counts only with the session's CSRF token
    /// (the cookie is SameSite=Strict as well, and another site cannot set this header without a
    /// CORS preflight the server never grants).
    static func writeCarriesCSRF(_ request: Request, token: APITokenSecret) -> Bool {
        request.method == .get || DispatchSession.csrfMatches(request.headers[csrfHeader], token: token)
    }
}
