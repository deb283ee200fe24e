import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Issue 36, findings 7, 8 and 11: the pages' cookies looked up without the budgets, a
/// dispatcher page sign-in's token that never expired, session cookies without `__Host-`,
/// `/metrics` open to anyone, a form whose CSRF token was skipped without Origin and Referer,
/// and a sign-out that revoked the token a dispatcher had pasted.
@Suite("Page sessions, metrics and forms (issue 36)", .timeLimit(.minutes(3)))
struct PageSessionHardeningTests {
    static func forged(_ n: Int) -> String { "rb_" + String(repeating: "Q", count: 40) + String(100 + n) }

    // MARK: Finding 7

    /// Good cookies take nothing, however many; forged ones take from the address's budget
    /// like forged bearer tokens, and once it is spent the pages answer 429 before any lookup.
    @Test func pageCookiesTakeFromTheAuthenticationBudgets() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock(Date())
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(3)
        }).test(.live) { client in
            for _ in 0..<5 {
                #expect(try await client.form(.get, "/dispatch", cookie: world.dispatcher.token).status == .ok)
                #expect(try await client.form(.get, "/", cookie: "rb_passenger=\(world.passenger.token)").status == .ok)
            }
            #expect(try await client.form(.get, "/dispatch", cookie: Self.forged(1)).status == .seeOther)
            #expect(try await client.form(.get, "/", cookie: "rb_passenger=\(Self.forged(2))").status == .ok)  // the sign-in form
            #expect(try await client.form(.get, "/dispatch/board", cookie: Self.forged(3)).status == .unauthorized)
            let limited = try await client.form(.get, "/dispatch", cookie: Self.forged(4))
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] != nil, "\(limited.status)")
            #expect(try await client.form(.get, "/ride/status", cookie: "rb_passenger=\(Self.forged(5))").status == .tooManyRequests)
            // As for bearer tokens: a token proven good lately is not blocked; an unproven one waits.
            #expect(try await client.form(.get, "/dispatch", cookie: world.dispatcher.token).status == .ok)
            let fresh = try await world.newDispatcherToken()
            #expect(try await client.form(.get, "/dispatch", cookie: fresh).status == .tooManyRequests)
            clock.advance(20)
            #expect(try await client.form(.get, "/dispatch", cookie: fresh).status == .ok)
        }
    }

    // MARK: Finding 8 (and 11's sign-out)

    /// Every code sign-in's token expires: the API's (the CLI, devices) after the configured
    /// days; a page's `webSessionLifetime` after its last use, the dispatcher page's now too.
    @Test(arguments: StoreKind.available)
    func everyCodeSignInsTokenExpires(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let clock = SteppedClock(Date())
        try await world.app(configure: {
            $0.now = clock.reading
            $0.webSessionLifetime = 3600
            $0.signInTokenLifetime = 7 * 86_400
        }).test(.live) { client in
            func code(for member: Member) async throws -> String {
                try #require(try await client.call(.post, "/v1/accounts/\(member.id)/sign-in-codes", as: world.admin).string("code"))
            }
            func expiry(of tokenID: String, _ member: Member) async throws -> Date? {
                try await world.store.tokens(accountID: member.id).first { $0.id == tokenID }?.expiresAt
            }
            let api = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(try await code(for: world.driver))"}"#)
            let apiTokenID = try #require(api.string("tokenId"))
            let apiExpiry = try #require(try await expiry(of: apiTokenID, world.driver))
            #expect(abs(apiExpiry.timeIntervalSince(clock.now) - 7 * 86_400) < 2)

            let login = try await client.form(.post, "/dispatch/login", "token=\(try await code(for: world.dispatcher))")
            #expect(login.status == .seeOther)
            let cookie = String(try #require(login.headers[.setCookie]).prefix { $0 != ";" })
            let session = try #require(try await world.store.tokens(accountID: world.dispatcher.id).max { $0.createdAt < $1.createdAt })
            #expect(session.expiresAt.map { abs($0.timeIntervalSince(clock.now) - 3600) < 2 } == true, "\(String(describing: session.expiresAt))")
            // It slides with use: 50 minutes, 50 more, still in; then an hour unused, out.
            for _ in 0..<2 {
                clock.advance(3000)
                #expect(try await client.form(.get, "/dispatch", cookie: cookie).status == .ok)
            }
            clock.advance(3700)
            let expired = try await client.form(.get, "/dispatch", cookie: cookie)
            #expect(expired.status == .seeOther && expired.headers[.location] == "/dispatch/login")
        }
    }

    /// A pasted dispatcher token is not put in the cookie: the page gets a session token of its
    /// own, and signing out ends that one while the pasted token (the CLI's) keeps working.
    @Test(arguments: StoreKind.available)
    func signingOutOfThePageLeavesAPastedTokenWorking(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.live) { client in
            let login = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)")
            let cookie = String(try #require(login.headers[.setCookie]).prefix { $0 != ";" })
            #expect(cookie.hasPrefix("rb_dispatch=rb_") && !cookie.contains(world.dispatcher.token))
            let page = try await client.form(.get, "/dispatch", cookie: cookie).text
            let csrf = String(try #require(page.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)
            let out = try await client.form(.post, "/dispatch/logout", "csrf=\(csrf)", cookie: cookie)
            #expect(out.status == .seeOther && out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await client.form(.get, "/dispatch", cookie: cookie).status == .seeOther, "the session's token is revoked")
            #expect(try await client.call(.get, "/v1/rides", as: world.dispatcher).status == .ok, "the pasted token still works")
        }
    }

    // MARK: Finding 11

    /// Over TLS both pages' session cookies are `__Host-` (Secure, Path=/, no Domain) and only
    /// that name is read; over plain HTTP, where browsers refuse `__Host-`, the bare name.
    @Test func sessionCookiesAreHostPrefixedOverTLS() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let tls = ["X-Forwarded-Proto": "https"]
            let dispatcher = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)", headers: tls)
            let secureCookie = try #require(dispatcher.headers[.setCookie])
            #expect(secureCookie.hasPrefix("__Host-rb_dispatch=rb_") && secureCookie.contains("Secure") && secureCookie.contains("Path=/")
                    && !secureCookie.lowercased().contains("domain="), "\(secureCookie)")
            let value = String(secureCookie.prefix { $0 != ";" }.drop { $0 != "=" }.dropFirst())
            #expect(try await client.form(.get, "/dispatch", cookie: "__Host-rb_dispatch=\(value)", headers: tls).status == .ok)
            // A bare cookie (planted by a sibling subdomain, say) is not read over TLS.
            #expect(try await client.form(.get, "/dispatch", cookie: "rb_dispatch=\(value)", headers: tls).status == .seeOther)

            let code = try #require(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin).string("code"))
            let passenger = try await client.form(.post, "/sign-in", "code=\(code.replacingOccurrences(of: " ", with: "+"))", headers: tls)
            #expect(passenger.headers[.setCookie]?.hasPrefix("__Host-rb_passenger=rb_") == true, "\(String(describing: passenger.headers[.setCookie]))")

            let plain = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)")
            #expect(plain.headers[.setCookie]?.hasPrefix("rb_dispatch=rb_") == true && plain.headers[.setCookie]?.contains("Secure") == false)
        }
    }

    /// With a token configured `/metrics` wants it; without one it answers only this machine,
    /// and not a request the proxy relayed.
    @Test func metricsWantATokenOrThisMachine() async throws {
        let world = try await World.make(.sqlite)
        try await world.app(configure: { $0.metricsToken = "metrics-token-for-tests-1234" }).test(.live) { client in
            #expect(try await client.call(.get, "/metrics", as: nil).status == .unauthorized)
            #expect(try await client.call(.get, "/metrics", as: world.admin).status == .unauthorized)
            let scraped = try await client.call(.get, "/metrics", as: nil, headers: ["Authorization": "Bearer metrics-token-for-tests-1234"])
            #expect(scraped.status == .ok && scraped.text.contains("ridebeacon_database_up"))
            #expect(try await client.call(.get, "/health", as: nil).status == .ok)
        }
        try await world.app(configure: { $0.rateLimits.clientAddressHeader = "X-Forwarded-For" }).test(.live) { client in
            #expect(try await client.call(.get, "/metrics", as: nil).status == .ok)
            let relayed = try await client.call(.get, "/metrics", as: nil, headers: ["X-Forwarded-For": "198.51.100.7"])
            #expect(relayed.status == .forbidden && relayed.errorCode == "forbidden")
        }
        #expect(OperationsRoutes<RideContext>.isLoopback("::1") && OperationsRoutes<RideContext>.isLoopback("127.0.0.1"))
        #expect(!OperationsRoutes<RideContext>.isLoopback("10.0.0.1"))
    }

    /// `POST /language` checks the session's CSRF token whatever Origin and Referer say:
    /// without it nothing changes, with it the language is kept.
    @Test func theLanguageFormNeedsItsCSRFTokenWhateverTheHeaders() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let session = "rb_passenger=\(world.passenger.token)"
            let page = try await client.form(.get, "/", cookie: session).text
            let csrf = String(try #require(page.firstMatch(of: /action="\/language" class="language"><input type="hidden" name="csrf" value="([^"]+)"/)).1)
            for headers in [[:], ["Origin": "http://127.0.0.1"], ["Referer": "http://127.0.0.1/"]] {
                let forged = try await client.form(.post, "/language", "language=fr", cookie: session, headers: headers)
                #expect(forged.status == .forbidden && forged.headers[.setCookie] == nil, "\(headers)")
            }
            #expect(try await client.form(.post, "/language", "csrf=forged&language=fr", cookie: session).status == .forbidden)
            #expect(try await world.store.accountLanguage(accountID: world.passenger.id) == nil)
            #expect(try await client.form(.post, "/language", "language=fr").status == .unauthorized, "signed out: no form to post")
            let picked = try await client.form(.post, "/language", "csrf=\(csrf)&language=fr", cookie: session)
            #expect(picked.status == .seeOther && picked.headers[.setCookie]?.hasPrefix("rb_lang=fr") == true)
            #expect(try await world.store.accountLanguage(accountID: world.passenger.id) == "fr")
        }
    }

    /// Page forms are flat and small: a deeply bracketed or huge form is refused before the
    /// form decoder builds a tree of it.
    @Test func formsWithBracketedNamesOrThousandsOfFieldsAreRefused() async throws {
        #expect(FormLimits.isFlatAndSmall("csrf=a&pickup=%5Bdoor%5D&notes=[x]"))
        #expect(!FormLimits.isFlatAndSmall("a[b]=1"))
        #expect(!FormLimits.isFlatAndSmall("a%5Bb%5D=1"))
        #expect(!FormLimits.isFlatAndSmall(String(repeating: "a=1&", count: 40)))
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let deep = "code" + String(repeating: "[a]", count: 20_000) + "=1"
            let refused = try await client.form(.post, "/sign-in", deep)
            #expect(refused.status == .badRequest, "\(refused.status)")
            #expect(try await client.call(.get, "/health", as: nil).status == .ok)
        }
    }
}
