import Foundation
import HTTPTypes
import Hummingbird

/// The sign-in form's CSRF check (login CSRF: another site signing the browser in as the
/// attacker's dispatcher). The other forms carry a token tied to the session, but before
/// signing in there is no session, so this one checks where the post came from instead.
///
/// Browsers send `Origin` on every cross-site POST (and `Referer` when a policy hides Origin);
/// either must name this server's host, as the `Host` header does (the shipped nginx passes
/// `$host`). Ports are not compared: behind a proxy `Host` has none while the browser's Origin
/// may. `Origin: null` (sandboxed or privacy-stripped) is refused. A post with neither header
/// does not come from a browser form, which is the only way to mount this attack, so it passes
/// (curl, tests).
enum SameOrigin {
    static let refused = APIError(.forbidden, code: .crossSiteForm,
                                  "This sign-in form was sent from another site. Open /dispatch/login on this server and sign in there.")

    static func check(_ request: Request) throws {
        let source = request.headers[.origin] ?? request.headers[.referer]
        guard let source else { return }
        guard let host = request.head.authority.map(hostname), !host.isEmpty,
              let sourceHost = URLComponents(string: source)?.host?.lowercased(), sourceHost == host else {
            throw refused
        }
    }

    /// `Host` without its port (and without the brackets of an IPv6 literal).
    static func hostname(_ host: String) -> String {
        var value = host.lowercased()
        if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
            value = String(value[value.index(after: value.startIndex)..<end])
        } else if let colon = value.lastIndex(of: ":") {
            value = String(value[..<colon])
        }
        return value
    }
}
