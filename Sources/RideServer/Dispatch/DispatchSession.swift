import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import RideStore

/// A dispatcher's browser session. A browser cannot send `Authorization: Bearer` when it
/// navigates, so the login form puts the dispatcher's API token in a cookie: HttpOnly (page
/// scripts never see it), SameSite=Strict (no other site's page can make the browser send it),
/// Secure behind TLS. Nothing is kept server-side: revoking or expiring the token ends the
/// session at once, exactly as for API clients.
enum DispatchSession {
    static let cookieName = "rb_dispatch"

    /// The token the request's cookie carries, if it has the shape of one.
    static func token(in request: Request) -> APITokenSecret? {
        request.cookies[cookieName].flatMap { APITokenSecret(presented: $0.value) }
    }

    /// The signed-in account, or nil when there is no cookie or its token no longer works.
    static func account(for request: Request, store: any Store) async throws -> (Account, APITokenSecret)? {
        guard let token = token(in: request), let account = try await store.authenticate(secretHash: token.hash) else { return nil }
        return (account, token)
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
        let expected = Array(csrfToken(for: token).utf8), given = Array(presented.utf8)
        // Constant time over equal lengths: the comparison leaks nothing about the expected value.
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Secure whenever the browser reached us over TLS: directly configured, or through a
    /// proxy that says so (a forged header only ever adds the flag).
    static func isSecure(_ request: Request, configured: Bool) -> Bool {
        configured || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    static func signInCookie(_ token: APITokenSecret, secure: Bool) -> Cookie {
        Cookie(name: cookieName, value: token.text, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    static func signOutCookie(secure: Bool) -> Cookie {
        Cookie(name: cookieName, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }
}
