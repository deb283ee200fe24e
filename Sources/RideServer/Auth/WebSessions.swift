import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RideStore

/// What the two pages' sign-ins and sign-outs share: the device name a browser's token gets,
/// and ending the token a cookie carried, so signing in again does not pile up tokens and
/// signing out leaves no working copy of the cookie behind.
struct WebSessions: Sendable {
    let store: any Store

    /// Names the token after the browser ("Firefox on Linux"); a failure leaves it unnamed.
    func nameDevice(of token: APIToken, request: Request) async {
        try? await store.nameTokenDevice(id: token.id, accountID: token.accountID, deviceName: WebDevice.name(userAgent: request.headers[.userAgent]))
    }

    /// Revokes the token `previous` carried unless it is `keeping`; the store announces it, so
    /// its streams end too. Returns the revoked token.
    @discardableResult
    func end(_ previous: APITokenSecret?, keeping: APITokenSecret? = nil, reason: String, logger: Logger) async throws -> APIToken? {
        guard let previous, previous.hash != keeping?.hash,
              let stored = try await store.token(secretHash: previous.hash), stored.revokedAt == nil else { return nil }
        let revoked = try await store.revokeToken(id: stored.id, accountID: stored.accountID)
        AdminAudit.record(logger, action: "token.revoke", actor: stored.accountID, via: .api, details: ["token_id": stored.id, "reason": reason])
        return revoked
    }
}

/// A browser's name for the token list, from its User-Agent: "Firefox on Linux", "Safari on
/// iPhone", else "a web browser". Only the family and the system, never the version string, so
/// the list reads like a person would say it.
enum WebDevice {
    static func name(userAgent: String?) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return "a web browser" }
        func has(_ word: String) -> Bool { agent.range(of: word, options: .caseInsensitive) != nil }
        // Order matters: Edge and Opera say Chrome too, Chrome says Safari too.
        let browser = has("Edg/") ? "Edge" : has("OPR/") ? "Opera" : has("Firefox/") ? "Firefox"
            : has("Chrome/") || has("Chromium/") ? "Chrome" : has("Safari/") ? "Safari" : nil
        let system = has("Android") ? "Android" : has("iPhone") ? "iPhone" : has("iPad") ? "iPad"
            : has("Windows") ? "Windows" : has("Mac OS X") || has("Macintosh") ? "Mac" : has("CrOS") ? "ChromeOS"
            : has("Linux") ? "Linux" : nil
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "a web browser on \(system)"
        case (nil, nil): return "a web browser"
        }
    }
}
