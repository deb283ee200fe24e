import Foundation
import HTTPTypes
import HummingbirdTesting
import RideServer
import Testing
import RideBeaconTesting

/// Smaller holes from the security review (issue 13, items 3 and 5).
@Suite("Security hardening", .timeLimit(.minutes(2)))
struct HardeningTests {
    /// The router matches a trailing slash too; the shipped nginx hid only the exact path.
    @Test
    func operationsRoutesAnswerOnlyTheirExactPath() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            #expect(try await client.call(.get, "/metrics", as: nil).status == .ok)
            #expect(try await client.call(.get, "/health", as: nil).status == .ok)
            for path in ["/metrics/", "/health/"] {
                let response = try await client.call(.get, path, as: nil)
                #expect(response.status == .notFound, "\(path)")
                #expect(response.errorCode == "not_found" && !response.text.contains("ridebeacon_"))
            }
        }
    }

    /// Login CSRF: another site's page must not sign the browser in (with the attacker's token).
    @Test
    func signInFromAnotherOriginIsRefusedAndSetsNoCookie() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            for headers in [["Origin": "https://evil.example"], ["Referer": "https://evil.example/page"], ["Origin": "null"],
                            ["Origin": "https://localhost.evil.example"]] {
                let login = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)", headers: headers)
                #expect(login.status == .forbidden, "\(headers)")
                #expect(login.headers[.setCookie] == nil)
                #expect(login.text.contains("another site"))
            }
            // The same host (the test client's Host is localhost) signs in, with or without a port.
            for origin in ["http://localhost", "https://localhost:8443"] {
                let login = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)", headers: ["Origin": origin])
                #expect(login.status == .seeOther && login.headers[.setCookie] != nil, "\(origin)")
            }
        }
    }
}

extension HardeningTests {
    /// Login CSRF whatever the headers (issue 36, finding 11): a post with neither Origin nor
    /// Referer (a proxy or privacy setting strips them) still needs the token the sign-in page
    /// gave this browser, in its cookie and in the form; without it, or with another browser's,
    /// nothing is spent and no cookie is set. Over TLS the cookie is `__Host-`.
    @Test(arguments: ["/sign-in", "/dispatch/login"])
    func signInFormsNeedTheirPagesTokenWhateverTheHeaders(form: String) async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let issued = try await client.call(.post, "/v1/accounts/\(form == "/sign-in" ? world.passenger.id : world.dispatcher.id)/sign-in-codes",
                                               as: world.admin, json: "{}")
            let code = try #require(issued.string("code")).replacingOccurrences(of: " ", with: "+")
            let field = form == "/sign-in" ? "code" : "token"
            let page = form == "/sign-in" ? "/" : "/dispatch/login"
            let mine = try await client.signInFormToken(page: page)
            let theirs = try await client.signInFormToken(page: page)
            #expect(mine.value != theirs.value, "two browsers got the same token")
            for (cookie, body) in [(nil, "\(field)=\(code)"), (mine.cookie, "\(field)=\(code)"), (nil, "csrf=\(mine.value)&\(field)=\(code)"),
                                   (theirs.cookie, "csrf=\(mine.value)&\(field)=\(code)"), (mine.cookie, "csrf=&\(field)=\(code)")] {
                let refused = try await client.form(.post, form, body, cookie: cookie ?? "rb_other=1", signInToken: false)
                #expect(refused.status == .forbidden && refused.text.contains("not one this server gave"),
                        "\(cookie ?? "no cookie") \(body): \(refused.status)")
                #expect(refused.headers[.setCookie] == nil)
            }
            // The code was not spent by any of those: the page's own token signs in with it.
            let signedIn = try await client.form(.post, form, "csrf=\(mine.value)&\(field)=\(code)", cookie: mine.cookie)
            #expect(signedIn.status == .seeOther, "\(signedIn.text)")
            let tls = try await client.signInFormToken(page: page, headers: ["X-Forwarded-Proto": "https"])
            #expect(tls.cookie.hasPrefix("__Host-rb_form="))
        }
    }
}

/// Failed authentications are logged sampled, with counts, not one line each (issue 13, item 7).
@Suite("Failure log sampling", .timeLimit(.minutes(2)))
struct FailureLogSamplingTests {
    static func lines(_ capture: RideKeySecrecyTests.LogCapture) -> [[String: String]] {
        capture.text.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?.mapValues { "\($0)" }
        }
    }

    @Test
    func aFloodOfBadTokensWritesOneLineWithCountsPerInterval() async throws {
        let world = try await World.make(.sqlite)
        let capture = RideKeySecrecyTests.LogCapture()
        let clock = SteppedClock()
        try await world.app(logger: capture.logger("ridebeacon"), configure: { $0.now = clock.reading }).test(.live) { client in
            let bogus = Member(account: world.passenger.account, token: "rb_" + String(repeating: "x", count: 43))
            for _ in 0..<30 {
                let status = try await client.call(.get, "/v1/rides", as: bogus).status
                #expect(status == .unauthorized || status == .tooManyRequests)
            }
            let sampled = { Self.lines(capture).filter { $0["msg"]?.contains("(sampled)") == true } }
            #expect(sampled().count == 1, "only the first failure of the interval is written")
            #expect(Self.lines(capture).filter { $0["msg"] == "request" && ($0["http.status"] == "401" || $0["http.status"] == "429") }.isEmpty)
            clock.advance(11)
            _ = try await client.call(.get, "/v1/rides", as: bogus)
            let second = try #require(sampled().last)
            #expect(sampled().count == 2)
            #expect((Int(second["count_401"] ?? "") ?? 0) + (Int(second["count_429"] ?? "") ?? 0) == 30,
                    "the 29 counted since the first line, and this one")
        }
    }
}

/// Admin actions leave an audit line; token secrets never appear in it (issue 13, item 7).
@Suite("Admin audit trail", .timeLimit(.minutes(2)))
struct AdminAuditTests {
    @Test
    func mintingAndRevokingTokensIsAudited() async throws {
        let world = try await World.make(.sqlite)
        let capture = RideKeySecrecyTests.LogCapture()
        try await world.app(logger: capture.logger("ridebeacon")).test(.live) { client in
            let issued = try await client.call(.post, "/v1/accounts/\(world.passenger.id)/tokens", as: world.admin, json: "{}")
            let secret = try #require(issued.string("token"))
            _ = try await client.call(.post, "/v1/accounts/\(world.passenger.id)/revoke-tokens", as: world.admin)
            let audit = FailureLogSamplingTests.lines(capture).filter { $0["audit"] == "admin" }
            #expect(audit.map { $0["action"] } == ["token.issue", "tokens.revoke"])
            #expect(audit.allSatisfy { $0["actor"] == world.admin.id && $0["account_id"] == world.passenger.id && $0["via"] == "api" })
            #expect(audit.first?["token_id"] == issued.string("tokenId"))
            #expect(!capture.text.contains(secret))
        }
    }

    /// Malformed bodies are refused before anything is written (strict JSON, duplicate keys).
    @Test
    func aBodyWithADuplicateKeyChangesNothing() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let body = #"{"passengerName":"Ana","pickup":"Main St 1","dropoff":"Station","pickup":"Elsewhere"}"#
            let response = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: body)
            #expect(response.status == .badRequest && response.errorCode == "invalid_json" && response.errorMessage.contains("pickup"))
            #expect(try await world.store.rideRequests(passengerID: world.passenger.id).isEmpty)
        }
    }
}
