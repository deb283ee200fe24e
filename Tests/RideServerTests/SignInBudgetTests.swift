import Foundation
import HummingbirdTesting
import PropertyBased
@testable import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Issue 36, findings 1 and 2: a body of thousands of keys cost the server a quadratic scan
/// and gave its sign-in reservation back; the server-wide sign-in budget, once an attacker
/// spent it, refused every rider's valid code. Counted by answers, never by time.
@Suite("Sign-in budgets and body parsing (issue 36)", .timeLimit(.minutes(3)))
struct SignInBudgetTests {
    /// The review's body: 8 680 distinct short keys in just under 64 KiB (the review's had 8 687).
    static let manyKeys: Data = {
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        func key(_ n: Int) -> String {
            var n = n, text = ""
            repeat { text.append(digits[n % digits.count]); n /= digits.count } while n > 0
            return text
        }
        let body = "{" + (0..<8680).map { #""\#(key($0))":0"# }.joined(separator: ",") + "}"
        return Data(body.utf8)
    }()

    // MARK: Finding 1: linear parsing, a cap on keys, every malformed sign-in spends the budget

    /// Refused for its size of object, by the scan that used to copy its key set per key; the
    /// same scan with no cap walks all 8 680 keys to the end (linear: one set, changed in place).
    @Test func thousandsOfKeysAreRefusedAsInvalidJSON() throws {
        #expect(Self.manyKeys.count <= BodyLimits.maxBodyBytes)
        #expect(throws: BodyError.invalidJSON("an object in the request body has more than \(BodyLimits.maxKeysPerObject) keys")) {
            try StrictJSON.decodeBody(SignInBody.self, from: Self.manyKeys)
        }
        #expect(DuplicateKeys.scan(Self.manyKeys) == .tooManyKeys(BodyLimits.maxKeysPerObject))
        #expect(DuplicateKeys.scan(Self.manyKeys, maxKeysPerObject: .max) == nil)
        // A repeat after thousands of keys is still found; one object's keys never leak into a sibling's.
        var repeated = Self.manyKeys.dropLast()
        repeated.append(contentsOf: Data(#","0":1}"#.utf8))
        #expect(DuplicateKeys.scan(Data(repeated), maxKeysPerObject: .max) == .duplicate("0"))
        #expect(DuplicateKeys.scan(Data(#"[{"a":1,"b":2},{"a":1,"b":{"a":[{"a":0}]}}]"#.utf8)) == nil)
        // Real bodies stay far under the cap.
        #expect(try StrictJSON.decodeBody(SignInBody.self, from: Data(#"{"code":"1234 5678","deviceName":"phone"}"#.utf8)).code == "1234 5678")
    }

    /// Any bytes end in a value or a `BodyError`, and the scan never traps: noise, and noise
    /// drawn from JSON's own punctuation (which reaches the scan far more often).
    @Test func anyBytesDecodeOrAreRefusedWithoutTrapping() async {
        func check(_ bytes: [UInt8]) {
            let data = Data(bytes)
            _ = DuplicateKeys.scan(data)
            _ = DuplicateKeys.scan(data, maxKeysPerObject: 1)
            do {
                _ = try StrictJSON.decodeBody(SignInBody.self, from: data)
                _ = try StrictJSON.decodeBody(NewRideRequestBody.self, from: data)
            } catch is BodyError {
            } catch {
                Issue.record("\(error) escaped as something other than a BodyError for \(bytes)")
            }
        }
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...300)) { check($0) }
        let alphabet = Array(#"{}[]{}"":,,\\u00d83dc0a1 "#.utf8)
        await propertyCheck(count: 1500, input: Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...300)) { picks in
            check(picks.map { alphabet[$0] })
        }
    }

    /// Before: a malformed body gave its reservation back, so it never met a 429. Now every
    /// request that reaches the route spends one; a burst of 20 against 3 gets 3 answers of
    /// 400 and 17 of 429, and a valid code from the same address waits too.
    @Test func malformedSignInBodiesMeet429() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock(Date())
        let answers = try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(3)
        }).test(.ahc(.http)) { client in
            let body = String(decoding: Self.manyKeys, as: UTF8.self)
            let burst = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let answer = try await client.call(.post, "/v1/sign-in", as: nil, json: body)
                        return "\(answer.status.code) \(answer.errorCode ?? "")"
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Malformed in other ways too: not JSON, an unknown field, a code of the wrong shape.
            clock.advance(60)
            var others: [Int] = []
            for json in ["{", #"{"code":"12345678","x":1}"#, #"{"code":"12ab"}"#, #"{"code":"12345678","code":"1"}"#] {
                others.append(Int(try await client.call(.post, "/v1/sign-in", as: nil, json: json).status.code))
            }
            return (burst, others)
        }
        #expect(answers.0.filter { $0 == "400 invalid_json" }.count == 3, "\(answers.0.sorted())")
        #expect(answers.0.filter { $0 == "429 rate_limited" }.count == 17, "\(answers.0.sorted())")
        #expect(answers.1 == [400, 400, 400, 429], "three malformed bodies spend the refilled budget of 3")
    }

    // MARK: Finding 2: the server-wide budget cannot be spent for everyone

    /// 40 addresses send 4 wrong codes each at once against a server-wide budget of 5. Before,
    /// once the 5 were spent every later sign-in got 429, valid codes included. Now each
    /// address gets its own 2 while the server-wide budget is spent: at most 5 + 2 × 40 wrong
    /// codes are looked up, and riders with valid codes still sign in, by the API and both
    /// pages, from a new address and from one that signed in before.
    @Test(arguments: StoreKind.available)
    func attackersSpendingTheServerWideBudgetDoNotLockRidersOut(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let clock = SteppedClock(Date())
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.signInFailuresServerWide = .perMinute(5)
            $0.rateLimits.signInsPerAddressWhenServerWideIsSpent = RateLimit(count: 2, per: 600)
            $0.rateLimits.clientAddressHeader = "X-Forwarded-For"
        }).test(.live) { client in
            func code(for member: Member) async throws -> String {
                let issued = try await client.call(.post, "/v1/accounts/\(member.id)/sign-in-codes", as: world.admin)
                return try #require(issued.string("code")).replacingOccurrences(of: " ", with: "")
            }
            func signIn(_ digits: String, from address: String) async throws -> Int {
                Int(try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(digits)"}"#,
                                          headers: ["X-Forwarded-For": address]).status.code)
            }
            // A rider signs in before the attack: her address becomes known good.
            #expect(try await signIn(try await code(for: world.passenger), from: "203.0.113.8") == 201)

            let attack = try await withThrowingTaskGroup(of: Int.self) { group in
                for address in 0..<40 {
                    for guess in 0..<4 {
                        group.addTask {
                            try await signIn(String(30_000_000 + address * 97 + guess * 7919), from: "198.51.100.\(address + 1)")
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let lookedUp = attack.filter { $0 == 401 }.count
            #expect(lookedUp >= 2 * 40 && lookedUp <= 5 + 2 * 40, "\(attack.sorted())")
            #expect(attack.filter { $0 == 429 }.count == 160 - lookedUp)
            // The server-wide budget is spent: one more attacker address gets its 2, then 429.
            #expect(try await signIn("39999991", from: "198.51.100.200") == 401)
            #expect(try await signIn("39999992", from: "198.51.100.200") == 401)
            #expect(try await signIn("39999993", from: "198.51.100.200") == 429)

            // A rider at a new address, with a valid code: signed in.
            #expect(try await signIn(try await code(for: world.otherPassenger), from: "203.0.113.50") == 201)
            // From the known-good address: a typo is looked up (401, not 429), then the valid code works.
            #expect(try await signIn("40000000", from: "203.0.113.8") == 401)
            #expect(try await signIn(try await code(for: world.passenger), from: "203.0.113.8") == 201)
            // The pages' sign-in forms alike.
            let passengerPage = try await client.form(.post, "/sign-in", "code=\(try await code(for: world.passenger))",
                                                      headers: ["X-Forwarded-For": "203.0.113.51"])
            #expect(passengerPage.status == .seeOther, "\(passengerPage.text)")
            let dispatcherPage = try await client.form(.post, "/dispatch/login", "token=\(try await code(for: world.dispatcher))",
                                                       headers: ["X-Forwarded-For": "203.0.113.52"])
            #expect(dispatcherPage.status == .seeOther, "\(dispatcherPage.text)")
        }
    }

    /// While the server-wide budget is spent an IPv6 site (/48) counts as one address: its
    /// 65 536 /64s would otherwise each get their own tries.
    @Test func anIPv6SiteIsOneAddressWhileTheServerWideBudgetIsSpent() async throws {
        #expect(AddressKey.site(AddressKey.of("2001:db8:1:2::1")) == AddressKey.site(AddressKey.of("2001:db8:1:ffff::9")))
        #expect(AddressKey.site(AddressKey.of("2001:db8:2::1")) != AddressKey.site(AddressKey.of("2001:db8:1::1")))
        #expect(AddressKey.site("192.0.2.7") == "192.0.2.7")
        let world = try await World.make(.sqlite)
        let clock = SteppedClock(Date())
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.signInFailuresServerWide = .perMinute(1)
            $0.rateLimits.signInsPerAddressWhenServerWideIsSpent = RateLimit(count: 2, per: 1800)
            $0.rateLimits.clientAddressHeader = "X-Forwarded-For"
        }).test(.live) { client in
            var answers: [Int] = []
            for subnet in 0..<6 {
                answers.append(Int(try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"5000000\#(subnet)"}"#,
                                                         headers: ["X-Forwarded-For": "2001:db8:7:\(subnet)::1"]).status.code))
            }
            #expect(answers == [401, 401, 401, 429, 429, 429], "one from the server-wide budget, two for the site")
        }
    }

    /// The allow-list forgets: past its lifetime an address meets the server-wide budget again.
    @Test func knownGoodAddressesAreForgottenAfterTheirLifetime() {
        let clock = SteppedClock()
        let recent = RecentAddresses(lifetime: 60, capacity: 4, now: clock.reading)
        recent.insert("192.0.2.1")
        #expect(recent.contains("192.0.2.1") && !recent.contains("192.0.2.2"))
        clock.advance(61)
        #expect(!recent.contains("192.0.2.1"))
        // Bounded: past its capacity the oldest half goes, the newest stays.
        for i in 0..<10 { recent.insert("198.51.100.\(i)"); clock.advance(1) }
        #expect(recent.contains("198.51.100.9") && !recent.contains("198.51.100.0"))
    }
}
