import Foundation
import HTTPTypes
import Hummingbird

/// The sign-in forms' CSRF token. Before signing in there is no session to tie a token to, so
/// the page gives the browser a random value twice: in a cookie (HttpOnly, SameSite=Strict,
/// `__Host-` over TLS) and in the form. A post counts only when the two agree: another site can
/// make a browser post the form but can neither read the cookie nor set it, so it cannot know
/// the value (login CSRF: signing the browser in as the attacker's account). `SameOrigin` still
/// checks Origin/Referer first; this holds whatever headers a browser or proxy strips.
enum SignInFormToken {
    static let cookieBase = "rb_form"
    /// A day: a sign-in page left open longer is opened again.
    static let lifetimeSeconds = 86_400

    static let refused = APIError(.forbidden, code: .crossSiteForm,
                                  "This sign-in form is not one this server gave this browser (it came from another site, or the page is older than a day). Open the sign-in page again and sign in there.")

    /// The value the form carries: the browser's own when it has a well-formed one, else a new
    /// one with the cookie that sets it.
    static func issue(for request: Request, secure: Bool) -> (value: String, cookie: Cookie?) {
        if let current = cookieValue(request, secure: secure) { return (current, nil) }
        let value = APITokenSecret.base64URL(RandomBytes.make(32))
        let cookie = Cookie(name: SessionCookie.name(cookieBase, secure: secure), value: value, maxAge: lifetimeSeconds, path: "/",
                            secure: secure, httpOnly: true, sameSite: .strict)
        return (value, cookie)
    }

    /// Throws `refused` unless the form's value is the cookie's (compared in constant time).
    static func check(_ presented: String?, request: Request, secure: Bool) throws {
        guard let expected = cookieValue(request, secure: secure), let presented,
              DispatchSession.constantTimeEqual(expected, presented) else { throw refused }
    }

    /// The cookie's value when it has the shape `issue` gives (43 base64url characters).
    private static func cookieValue(_ request: Request, secure: Bool) -> String? {
        guard let value = request.cookies[SessionCookie.name(cookieBase, secure: secure)]?.value, value.utf8.count == 43,
              value.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0)
                  || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else { return nil }
        return value
    }

    /// `response` with the token's cookie, when `issue` made one.
    static func attach(_ cookie: Cookie?, to response: Response) -> Response {
        var response = response
        if let cookie { response.setCookie(cookie) }
        return response
    }
}
