import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RideStore

/// What the two pages' sign-ins and sign-outs share: the device name a browser's token gets,
/// and ending the token a cookie carried, so signing in again does not pile up tokens and
/// signing out leaves no working copy of the cookie behind.
struct WebSessions: Sendable {
    let store: any AccountStore

    /// The account a page cookie's token belongs to, or nil when it no longer works (revoked, or
    /// expired by the server's clock). Looked up under the authentication budgets like any
    /// presented token. Every page sign-in's token expires `lifetime` after its last use: its
    /// expiry moves forward once it is more than a minute old.
    func account(for token: APITokenSecret, limits: RateLimits, now: Date, lifetime: TimeInterval) async throws -> Account? {
        let found: (APIToken, Account)? = try await limits.lookUpSession(token, address: PageClient.current) {
            guard let stored = try await store.token(secretHash: token.hash), stored.revokedAt == nil, stored.expiresAt.map({ $0 > now }) ?? true,
                  let account = try await store.account(id: stored.accountID) else { return nil }
            return (stored, account)
        }
        guard let (stored, account) = found else { return nil }
        if let expires = stored.expiresAt, expires < now.addingTimeInterval(lifetime - 60) {
            _ = try await store.extendToken(id: stored.id, expiresAt: now.addingTimeInterval(lifetime), now: now)
        }
        return account
    }

    /// A new page session for `account`: its own token, expiring `lifetime` after its last use
    /// (`account(for:…)` slides it), named after the browser.
    func start(for account: Account, request: Request, now: Date, lifetime: TimeInterval) async throws -> APITokenSecret {
        let secret = APITokenSecret()
        let token = try await store.addToken(accountID: account.id, secretHash: secret.hash, expiresAt: now.addingTimeInterval(lifetime))
        await nameDevice(of: token, request: request)
        return secret
    }

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
