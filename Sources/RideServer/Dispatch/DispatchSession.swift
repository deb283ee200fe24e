import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import RideStore

/// A dispatcher's browser session. A browser cannot send `Authorization: Bearer` when it
/// navigates, so the login form puts the dispatcher's API token in a cookie: HttpOnly (page
/// scripts never see it), SameSite=Strict (no other site's page can make the browser send it),
/// Secure behind TLS. The token is the session's own, made at sign-in (with a code, or with
/// a pasted dispatcher token, which stays the dispatcher's and is never put in the cookie), and
/// it expires like the passenger page's, `webSessionLifetime` after its last use. Nothing else
/// is kept server-side: revoking or expiring the token ends the session at once.
enum DispatchSession {
    static let cookieName = "rb_dispatch"

    /// `__Host-rb_dispatch` over TLS: the browser then keeps it only if it is Secure, for this
    /// host alone (no Domain) and Path=/, so a sibling subdomain cannot plant one (issue 36).
    /// Over plain HTTP (a laptop, the tests) browsers refuse `__Host-` cookies, so the bare name.
    static func cookieName(secure: Bool) -> String { SessionCookie.name(cookieName, secure: secure) }

    /// The token the request's cookie carries, if it has the shape of one. Over TLS only the
    /// `__Host-` cookie counts.
    static func token(in request: Request, secure: Bool) -> APITokenSecret? {
        SessionCookie.token(named: cookieName, in: request, secure: secure)
    }

    /// The signed-in account, or nil when there is no cookie or its token no longer works. The
    /// lookup takes from the authentication budgets like any presented token (429 when spent);
    /// the session's expiry slides forward with use (`WebSessions`).
    static func account(for request: Request, secure: Bool, sessions: WebSessions, limits: RateLimits, now: Date,
                        lifetime: TimeInterval) async throws -> (Account, APITokenSecret)? {
        try await SessionCookie.session(named: cookieName, in: request, secure: secure, sessions: sessions, limits: limits, now: now,
                                        lifetime: lifetime)
    }

    /// Forms carry this and the server recomputes it: an HMAC keyed by the session's own token,
    /// so it is tied to the session, needs no storage, and cannot be forged without the
    /// (HttpOnly) token. SameSite=Strict already stops cross-site posts; this is the second lock.
    static func csrfToken(for token: APITokenSecret) -> String {
        let key = SymmetricKey(data: Data(token.text.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("ridebeacon/dispatch/csrf/v1".utf8), using: key)
        return APITokenSecret.base64URL(Data(mac))
    }

    static func csrfMatches(_ presented: String?, token: APITokenSecret) -> Bool {
        guard let presented else { return false }
        return constantTimeEqual(csrfToken(for: token), presented)
    }

    /// Constant time over equal lengths: the comparison leaks nothing about the expected value
    /// (both pages' form tokens: the session's and the sign-in forms').
    static func constantTimeEqual(_ expected: String, _ presented: String) -> Bool {
        let expected = Array(expected.utf8), given = Array(presented.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Secure whenever the browser reached us over TLS: directly configured, or through a
    /// proxy that says so (a forged header only ever adds the flag).
    static func isSecure(_ request: Request, configured: Bool) -> Bool {
        configured || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    static func signInCookie(_ token: APITokenSecret, secure: Bool) -> Cookie {
        Cookie(name: cookieName(secure: secure), value: token.text, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    static func signOutCookie(secure: Bool) -> Cookie {
        Cookie(name: cookieName(secure: secure), value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }
}

/// The two pages' session cookie names.
/// What both pages' session cookies share: the name, the token it carries, and the account
/// behind it, looked up through the authentication budgets.
enum SessionCookie {
    static func name(_ base: String, secure: Bool) -> String { secure ? "__Host-" + base : base }

    /// The token the cookie `base` carries, if it has the shape of one. Over TLS only the
    /// `__Host-` cookie counts.
    static func token(named base: String, in request: Request, secure: Bool) -> APITokenSecret? {
        request.cookies[name(base, secure: secure)].flatMap { APITokenSecret(presented: $0.value) }
    }

    /// The signed-in account and its token, or nil without a cookie or when its token no
    /// longer works; the lookup takes from the authentication budgets (429 when spent) and
    /// slides the session's expiry (`WebSessions`).
    static func session(named base: String, in request: Request, secure: Bool, sessions: WebSessions, limits: RateLimits, now: Date,
                        lifetime: TimeInterval) async throws -> (Account, APITokenSecret)? {
        guard let token = token(named: base, in: request, secure: secure),
              let account = try await sessions.account(for: token, limits: limits, now: now, lifetime: lifetime) else { return nil }
        return (account, token)
    }
}
