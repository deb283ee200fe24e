import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import Logging
@testable import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// Issue 24: the review's findings on sign-in codes, the limiter, the dispatcher page's free
/// text and web sessions, each with a test that failed on the code before the fix.
@Suite("Sign-in hardening (issue 24)", .timeLimit(.minutes(3)))
struct SignInHardeningTests {
    // MARK: High 1: a dispatcher cannot become a passenger or driver

    /// The review's attack end to end: as a dispatcher, mint codes for a ride's passenger and
    /// driver, redeem them, read the key, post both proofs. Every first step is refused now, the
    /// same 403 for every account id (known staff, rider or unknown), and the ride stays arrived.
    @Test(arguments: StoreKind.available)
    func aDispatcherCannotMintCodesToBecomeTheRiders(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.arrivedRide()
        try await world.app().test(.live) { client in
            var refusals: [String] = []
            for id in [world.passenger.id, world.driver.id, world.admin.id, "no-such-account"] {
                let refused = try await client.call(.post, "/v1/accounts/\(id)/sign-in-codes", as: world.dispatcher)
                #expect(refused.status == .forbidden && refused.errorCode == "forbidden", "\(id): \(refused.text)")
                refusals.append(refused.errorMessage)
            }
            #expect(Set(refusals).count == 1, "one answer whatever the id: \(refusals)")
            // Nothing was issued, so nothing signs in: the attack has no token to read the key with.
            let tokensBefore = try await world.store.tokens(accountID: world.passenger.id).count
            for digits in ["0000 0000", "1234 5678"] {
                #expect(try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(digits)"}"#).status == .unauthorized)
            }
            #expect(try await world.store.tokens(accountID: world.passenger.id).count == tokensBefore)
            #expect(try await world.store.tokens(accountID: world.driver.id).count == 1)
            #expect(try await world.store.ride(id: ride.id)?.state == .arrived)
            // The dispatcher's own view of the ride never had the key.
            let seen = try await client.call(.get, "/v1/rides/\(ride.id)", as: world.dispatcher)
            #expect(seen.status == .ok && seen.json["key"] == nil)
        }
    }

    /// Admins still issue codes; issuing and redeeming are audit-logged with the issuer.
    @Test(arguments: StoreKind.available)
    func issuingAndRedeemingAreAuditedWithTheIssuer(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let capture = RideKeySecrecyTests.LogCapture()
        try await world.app(logger: capture.logger("ridebeacon")).test(.live) { client in
            let issued = try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin)
            #expect(issued.status == .created)
            let code = try #require(issued.string("code"))
            let signedIn = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(code)"}"#)
            #expect(signedIn.status == .created)
            let lines = capture.text.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
            func fields(_ action: String) -> [String: Any]? {
                lines.first { ($0["action"] as? String) == action } ?? lines.compactMap { $0["metadata"] as? [String: Any] }.first { ($0["action"] as? String) == action }
            }
            let issue = try #require(fields("sign-in-code.issue"), "\(capture.text)")
            #expect(issue["issued_by"] as? String == world.admin.id && issue["account_id"] as? String == world.passenger.id)
            let redeem = try #require(fields("sign-in"), "\(capture.text)")
            #expect(redeem["issued_by"] as? String == world.admin.id && redeem["code_id"] as? String != nil)
        }
    }

    // MARK: High 2: the limiter takes before the work

    /// 60 wrong codes at once from one address against a budget of 5: exactly 5 are looked up
    /// (401), the other 55 are refused before any lookup (429). Counted by answers; the clock is
    /// frozen so nothing refills. Before the fix every request in flight passed the check.
    @Test(arguments: StoreKind.available)
    func aConcurrentBurstOfWrongCodesGetsExactlyTheBudget(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let clock = SteppedClock()
        let answers = try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(5)
        }).test(.ahc(.http)) { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<60 {
                    group.addTask {
                        let digits = String(10_000_000 + i * 7919)
                        return Int(try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(digits)"}"#).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(answers.filter { $0 == 401 }.count == 5, "\(answers.sorted())")
        #expect(answers.filter { $0 == 429 }.count == 55, "\(answers.sorted())")
    }

    /// The passenger page's form shares the budget and is bounded the same way under a burst.
    @Test func thePageFormsBurstIsBoundedToo() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        let answers = try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(4)
        }).test(.ahc(.http)) { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<40 {
                    group.addTask {
                        Int(try await client.form(.post, "/sign-in", "code=\(20_000_000 + i * 31)").status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(answers.filter { $0 == 401 }.count == 4 && answers.filter { $0 == 429 }.count == 36, "\(answers.sorted())")
    }

    /// Wrong bearer tokens in a burst: the same bound (the budget is taken before the lookup).
    @Test func aConcurrentBurstOfWrongTokensGetsExactlyTheBudget() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        let answers = try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(6)
        }).test(.ahc(.http)) { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<50 {
                    group.addTask {
                        let forged = Member(account: world.passenger.account, token: "rb_" + String(repeating: "A", count: 40) + String(100 + i))
                        return Int(try await client.call(.get, "/v1/rides", as: forged).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(answers.filter { $0 == 401 }.count == 6 && answers.filter { $0 == 429 }.count == 44, "\(answers.sorted())")
    }

    /// Good codes give their share back: more sign-ins than the budget, one after another, all
    /// succeed; and a good token's requests take nothing, however many are in flight.
    @Test func successesAreRefunded() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(3)
        }).test(.live) { client in
            for _ in 0..<6 {
                let code = try #require(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin).string("code"))
                #expect(try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(code)"}"#).status == .created)
            }
            for _ in 0..<20 { #expect(try await client.call(.get, "/v1/rides", as: world.passenger).status == .ok) }
        }
    }

    /// IPv6 clients are counted by /64; past the server-wide budget each new address gets only
    /// its own small allowance (issue 36: it no longer refuses everyone); the per-account budget
    /// stops repeated tries of one account's codes.
    @Test func addressesByPrefixServerWideAndPerAccount() async throws {
        #expect(AddressKey.of("2001:db8:1:2::1") == AddressKey.of("2001:db8:1:2:ffff:ffff:ffff:fffe"))
        #expect(AddressKey.of("2001:db8:1:2::1") != AddressKey.of("2001:db8:1:3::1"))
        #expect(AddressKey.of("::ffff:192.0.2.7") == "192.0.2.7" && AddressKey.of("192.0.2.7") == "192.0.2.7")
        #expect(AddressKey.of("[2001:db8::1]") == AddressKey.of("2001:db8::2%eth0"))

        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(2)
            $0.rateLimits.signInFailuresServerWide = .perMinute(5)
            $0.rateLimits.signInsPerAccount = .perMinute(2)
            $0.rateLimits.signInsPerAddressWhenServerWideIsSpent = RateLimit(count: 1, per: 600)
            $0.rateLimits.clientAddressHeader = "X-Forwarded-For"
        }).test(.live) { client in
            func guess(from address: String, _ digits: String = "00000000") async throws -> Int {
                Int(try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(digits)"}"#,
                                          headers: ["X-Forwarded-For": address]).status.code)
            }
            // Two addresses of one /64 share a budget of 2.
            #expect(try await guess(from: "2001:db8:1:2::1") == 401)
            #expect(try await guess(from: "2001:db8:1:2::99") == 401)
            #expect(try await guess(from: "2001:db8:1:2:abcd::5") == 429)
            // Fresh addresses: the server-wide 5 run out after 3 more; then each address has its one.
            #expect(try await guess(from: "198.51.100.1") == 401)
            #expect(try await guess(from: "198.51.100.2") == 401)
            #expect(try await guess(from: "198.51.100.3") == 401)
            #expect(try await guess(from: "198.51.100.4") == 401)
            #expect(try await guess(from: "198.51.100.4") == 429)
            clock.advance(60)
            // One account's used code, tried from ever-new addresses: its own budget of 2.
            let code = try #require(try await client.call(.post, "/v1/accounts/\(world.driver.id)/sign-in-codes", as: world.admin).string("code"))
            let digits = code.replacingOccurrences(of: " ", with: "")
            #expect(try await guess(from: "203.0.113.1", digits) == 201)
            #expect(try await guess(from: "203.0.113.2", digits) == 401)
            #expect(try await guess(from: "203.0.113.3", digits) == 401)
            #expect(try await guess(from: "203.0.113.4", digits) == 429, "two failed tries on the account: its budget is spent")
        }
    }

    // MARK: Medium 3: the dispatcher page's cancel reason goes through the edge's rule

    @Test func theDispatcherPagesCancelReasonRefusesControlCharacters() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        try await world.app().test(.live) { client in
            let cookie = world.dispatcher.token
            let page = try await client.form(.get, "/dispatch/rides/\(ride.id)/cancel", cookie: cookie)
            let csrf = try #require(page.text.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) })
            let hostile = "Traffic%1B%5D0%3Bpwned%07%1B%5B2J%1B%5B31mYOUR+RIDE+IS+CONFIRMED%0D"
            let refused = try await client.form(.post, "/dispatch/rides/\(ride.id)/cancel", "csrf=\(csrf)&reason=\(hostile)", cookie: cookie)
            #expect(refused.status == .badRequest && refused.text.contains("without control characters"), "\(refused.text)")
            #expect(try await world.store.ride(id: ride.id)?.state == .accepted, "a refused reason changes nothing")
            // A textarea's CR LF is a line break, stored as LF.
            let fine = try await client.form(.post, "/dispatch/rides/\(ride.id)/cancel", "csrf=\(csrf)&reason=Car+broke+down%0D%0ASorry", cookie: cookie)
            #expect(fine.status == .seeOther || fine.status == .found, "\(fine.status)")
            let cancelled = try await world.store.events(rideID: ride.id, after: 0).last
            #expect(cancelled?.state == .cancelled && cancelled?.detail == "Car broke down\nSorry")
        }
    }

    // MARK: Medium 4: keyed code hashes, the key in a 0600 file, rotation

    @Test func codeHashesAreKeyedWithAFileOutsideTheDatabaseAndRotate() async throws {
        let directory = try Repository.temporaryDirectory()
        let path = directory.appendingPathComponent("sign-in.key").path
        let key = SignInKey.file(path)
        let first = try key.current()
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "created 0600 (mode \(String(mode, radix: 8)))")
        // Keyed: without the key the hash of a code cannot be computed, so no offline search of
        // the 10^8 codes (the old unkeyed SHA-256 fell to one in under two minutes).
        let firstHash = SignInCodeHash.of("12345678", key: first)
        let otherHash = SignInCodeHash.of("12345678", key: try SignInKey.ephemeral().current())
        let againHash = SignInCodeHash.of("12345678", key: try key.current())
        #expect(firstHash != otherHash)
        #expect(firstHash == againHash)

        let world = try await World.make(.sqlite)
        try await world.app(configure: { $0.signInKey = key }).test(.live) { client in
            let old = try #require(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin).string("code"))
            try SignInKey.rotate(path)
            let rotatedHash = SignInCodeHash.of("12345678", key: try key.current())
            #expect(rotatedHash != firstHash, "the server sees the new key")
            let refused = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(old)"}"#)
            #expect(refused.status == .unauthorized && refused.errorCode == "invalid_sign_in_code", "codes from before the rotation are dead")
            let new = try #require(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin).string("code"))
            #expect(try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(new)"}"#).status == .created)
            // A key file others may read is refused (503), and says nothing of the path.
            chmod(path, 0o644)
            let unsafe = try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin)
            #expect(unsafe.status == .serviceUnavailable && !unsafe.text.contains(path))
        }
        #expect(throws: SignInKeyError.self) { try SignInKey.file(path).current() }
    }

    // MARK: Medium 5 and low 8: revocation kills codes, sign-out revokes, web sessions expire

    @Test(arguments: StoreKind.available)
    func revokingAnAccountsTokensKillsItsCodes(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.live) { client in
            let code = try #require(try await client.call(.post, "/v1/accounts/\(world.driver.id)/sign-in-codes", as: world.admin).string("code"))
            #expect(try await client.call(.post, "/v1/accounts/\(world.driver.id)/revoke-tokens", as: world.admin).status == .ok)
            let refused = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(code)"}"#)
            #expect(refused.status == .unauthorized && refused.errorCode == "sign_in_code_expired", "\(refused.text)")
        }
    }

    @Test func signOutRevokesThePagesTokenAndSessionsSlideThenExpire() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        try await world.app(configure: {
            $0.now = clock.reading
            $0.webSessionLifetime = 3600
        }).test(.live) { client in
            func signIn() async throws -> String {
                let code = try #require(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin).string("code"))
                let signedIn = try await client.form(.post, "/sign-in", "code=\(code.replacingOccurrences(of: " ", with: ""))")
                return String(try #require(signedIn.headers[.setCookie]).prefix { $0 != ";" })
            }
            let cookie = try await signIn()
            let home = try await client.form(.get, "/", cookie: cookie)
            #expect(home.text.contains("Request a ride"))
            let csrf = try #require(home.text.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) })
            let out = try await client.form(.post, "/sign-out", "csrf=\(csrf)", cookie: cookie)
            #expect(out.status == .seeOther || out.status == .found)
            // The copied cookie no longer works: the token itself is revoked.
            #expect(try await client.form(.get, "/", cookie: cookie).text.contains("Sign in"))
            #expect(!(try await client.form(.get, "/", cookie: cookie).text.contains("Request a ride")))
            let tokens = try await world.store.tokens(accountID: world.passenger.id)
            #expect(tokens.filter { $0.revokedAt == nil }.count == 1, "only the world's own token is left")

            // Sliding: used every 50 minutes it stays; left alone an hour, it ends.
            let again = try await signIn()
            for _ in 0..<3 {
                clock.advance(50 * 60)
                #expect(try await client.form(.get, "/", cookie: again).text.contains("Request a ride"), "used within the hour")
            }
            clock.advance(61 * 60)
            #expect(!(try await client.form(.get, "/", cookie: again).text.contains("Request a ride")), "an hour unused: signed out")
        }
    }

    // MARK: Low 6, 9, 11

    /// A short code of someone else's ride answers exactly like a code nobody has.
    @Test(arguments: StoreKind.available)
    func anotherRidesShortCodeAnswersLikeNoRide(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        let code = try #require(ride.shortCode)
        let unused = ["KKKK", "FFFF", "HHHH"].first { $0 != code }!
        try await world.app().test(.live) { client in
            let theirs = try await client.call(.get, "/v1/rides/\(code)", as: world.otherPassenger)
            let nobodys = try await client.call(.get, "/v1/rides/\(unused)", as: world.otherPassenger)
            #expect(theirs.status == .notFound && nobodys.status == .notFound)
            #expect(theirs.errorMessage.replacingOccurrences(of: code, with: "X") == nobodys.errorMessage.replacingOccurrences(of: unused, with: "X"))
            #expect(!theirs.text.contains(ride.id), "the ride's id never leaks")
            let locator = try await client.call(.post, "/v1/rides/\(code)/locator", as: world.otherPassenger)
            #expect(locator.status == .notFound && !locator.text.contains(ride.id))
        }
    }

    /// A proof sent again with `observedAt` a millisecond later is the same touch: refused.
    @Test(arguments: StoreKind.available)
    func aResentProofWithAShiftedTimeIsAReplay(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        let key = try #require(try await world.store.ride(id: ride.id)?.key)
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let proof = try ProofBody(ride: key, by: .driver, at: clock.now)
            let first = try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: world.driver, json: proof.json)
            #expect(first.status == .ok || first.status == .created, "\(first.text)")
            var shifted = proof
            shifted.observedAt = proof.observedAt.addingTimeInterval(0.001)
            let again = try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: world.driver, json: shifted.json)
            #expect(again.errorCode == "replayed_proof", "\(again.text)")
            #expect(try await world.store.touchProofs(rideID: ride.id).count == 1)
            // The driver's device re-proving an ongoing touch 5 s later (its window grown by 5 s)
            // says something new: accepted, as the mutual rule needs (DriverArriveBumbleTests).
            clock.advance(5)
            var ongoing = try ProofBody(ride: key, by: .driver, at: clock.now)
            ongoing.observedFrom = proof.observedAt
            ongoing.observedUntil = clock.now
            let reproved = try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: world.driver, json: ongoing.json)
            #expect(reproved.status == .ok, "\(reproved.text)")
            #expect(try await world.store.touchProofs(rideID: ride.id).count == 2)
        }
    }

    /// The passenger page refuses a driver's code without spending it; it still works where it belongs.
    @Test(arguments: StoreKind.available)
    func thePassengerPageDoesNotSpendADriversCode(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.live) { client in
            let code = try #require(try await client.call(.post, "/v1/accounts/\(world.driver.id)/sign-in-codes", as: world.admin).string("code"))
            let refused = try await client.form(.post, "/sign-in", "code=\(code.replacingOccurrences(of: " ", with: ""))")
            #expect(refused.status == .forbidden && refused.headers[.setCookie] == nil)
            #expect(try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(code)"}"#).status == .created)
        }
    }

    /// One issuer's codes per day are capped, whatever accounts they are for.
    @Test(arguments: StoreKind.available)
    func codesArePerIssuerPerDayToo(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let now = Date()
        for account in [world.passenger, world.driver] {
            let (record, digits) = SignInCodeHash.issue(accountID: account.id, by: world.admin.id, now: now)
            _ = try await world.store.addSignInCode(record, codeHash: Data(digits.utf8), perDay: 10, perIssuerPerDay: 2)
        }
        let (record, digits) = SignInCodeHash.issue(accountID: world.otherPassenger.id, by: world.admin.id, now: now)
        await #expect(throws: StoreError.self) {
            _ = try await world.store.addSignInCode(record, codeHash: Data(digits.utf8), perDay: 10, perIssuerPerDay: 2)
        }
        let (other, otherDigits) = SignInCodeHash.issue(accountID: world.otherPassenger.id, by: "another-admin", now: now)
        _ = try await world.store.addSignInCode(other, codeHash: Data(otherDigits.utf8), perDay: 10, perIssuerPerDay: 2)
    }

    /// The rider is told of a sign-in they did not make.
    @Test func thePassengerPageNamesOtherSignIns() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let code = try #require(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin).string("code"))
            let signedIn = try await client.form(.post, "/sign-in", "code=\(code.replacingOccurrences(of: " ", with: ""))")
            let cookie = String(try #require(signedIn.headers[.setCookie]).prefix { $0 != ";" })
            let other = try #require(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin).string("code"))
            #expect(try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(other)"}"#).status == .created)
            let home = try await client.form(.get, "/", cookie: cookie).text
            // The world's own token and the API sign-in: two other sign-ins, neither with a device
            // name, said as what they are, under their own heading after the page's heading.
            #expect(home.components(separatedBy: "A sign-in to your account was made on").count == 3, "\(home)")
            #expect(!home.contains("on another device or browser"))
            let heading = try #require(home.range(of: "<h1>")), notices = try #require(home.range(of: #"<h2 id="account-heading">Sign-ins to your account</h2>"#))
            #expect(heading.lowerBound < notices.lowerBound, "the account's notices come after the ride's heading")
            // A named device is named, in her language.
            let tokens = try await world.store.tokens(accountID: world.passenger.id)
            let named = try #require(tokens.last { $0.deviceName == nil })
            try await world.store.nameTokenDevice(id: named.id, accountID: world.passenger.id, deviceName: "Ana's laptop")
            let csrf = String(try #require(home.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)
            _ = try await client.form(.post, "/language", "csrf=\(csrf)&language=fr", cookie: cookie)
            let french = try await client.form(.get, "/", cookie: cookie).text
            #expect(french.contains("Votre compte est aussi ouvert sur Ana&#39;s laptop depuis le") || french.contains("Votre compte est aussi ouvert sur Ana&#x27;s laptop depuis le")
                    || french.contains("Votre compte est aussi ouvert sur Ana's laptop depuis le"), "\(french)")
        }
    }
}

