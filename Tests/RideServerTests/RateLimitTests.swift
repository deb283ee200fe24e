import Foundation
import HummingbirdTesting
import RideServer
@testable import RideStore
import Testing
import RideBeaconTesting

@Suite("Rate limits", .timeLimit(.minutes(2)))
struct RateLimitTests {
    @Test func failedAuthenticationsAreLimitedPerAddressThen429WithRetryAfter() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(3)
        }).test(.live) { client in
            let forged = Member(account: world.passenger.account, token: "rb_" + String(repeating: "A", count: 43))
            for _ in 0..<3 {
                #expect(try await client.call(.get, "/v1/rides", as: forged).status == .unauthorized)
            }
            let limited = try await client.call(.get, "/v1/rides", as: forged)
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited")
            // One attempt refills every 20 s (3 a minute).
            #expect(limited.headers[.retryAfter] == "20")
            // The address is what is blocked: a good token from it waits too.
            #expect(try await client.call(.get, "/v1/rides", as: world.passenger).status == .tooManyRequests)
            clock.advance(20)
            #expect(try await client.call(.get, "/v1/rides", as: world.passenger).status == .ok)
            let metrics = try await client.call(.get, "/metrics", as: nil).text
            #expect(metrics.contains(#"ridebeacon_rate_limited_total{limit="authentication_failures"} 2"#), "\(metrics)")
        }
    }

    @Test func failedAuthenticationsAreLimitedPerTokenBehindAProxy() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(2)
            $0.rateLimits.clientAddressHeader = "X-Forwarded-For"
        }).test(.live) { client in
            let revoked = try await World.token(for: world.driver.account, in: world.store)
            _ = try await world.store.revokeTokens(accountID: world.driver.id)
            // The same revoked token from ever-new addresses: the token's own count stops it.
            for i in 0..<2 {
                let response = try await client.call(.get, "/v1/rides", as: revoked, headers: ["X-Forwarded-For": "10.0.0.\(i)"])
                #expect(response.status == .unauthorized)
            }
            let limited = try await client.call(.get, "/v1/rides", as: revoked, headers: ["X-Forwarded-For": "10.0.0.9"])
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] == "30")
            // Other clients behind the proxy (another forwarded address, another token) are unaffected.
            #expect(try await client.call(.get, "/v1/rides", as: world.passenger, headers: ["X-Forwarded-For": "10.0.0.9"]).status == .ok)
        }
    }

    @Test func touchProofsAreLimitedPerTokenAndPerAddress() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.touchProofsPerToken = .perMinute(2)
            $0.rateLimits.touchProofsPerAddress = .perMinute(3)
        }).test(.live) { client in
            let path = "/v1/rides/\(ride.id)/touch-proofs"
            // Rejected proofs count as well: guessing identities is what the limit slows down.
            var guess = try ProofBody(ride: ride.key, by: .passenger, at: clock.now)
            guess.identity.major &+= 1
            let wrong = guess.json
            #expect(try await client.call(.post, path, as: world.passenger, json: wrong).errorCode == "wrong_identity")
            #expect(try await client.call(.post, path, as: world.passenger, json: wrong).errorCode == "wrong_identity")
            let perToken = try await client.call(.post, path, as: world.passenger, json: wrong)
            #expect(perToken.status == .tooManyRequests && perToken.errorCode == "rate_limited" && perToken.headers[.retryAfter] == "30")
            #expect(perToken.headers[.contentType]?.hasPrefix("application/json") == true)
            // The driver's token is fresh, but the address has one proof left, then none.
            #expect(try await client.call(.post, path, as: world.driver, json: wrong).errorCode == "wrong_identity")
            let perAddress = try await client.call(.post, path, as: world.driver, json: wrong)
            #expect(perAddress.status == .tooManyRequests && perAddress.headers[.retryAfter] == "20")
            // Limits do not touch the ride.
            #expect(try await world.store.ride(id: ride.id)?.state == .arrived)
            clock.advance(30)
            let passenger = try ProofBody(ride: ride.key, by: .passenger, at: clock.now)
            #expect(try await client.call(.post, path, as: world.passenger, json: passenger.json).status == .ok)
        }
    }

    /// Messages to the driver: a few in a row go through; past the account's limit each is 429
    /// with Retry-After and reaches no stream; a minute on, one goes through again.
    @Test func messagesToTheDriverAreLimitedPerAccount() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.messagesPerAccount = .perMinute(2)
        }).test(.live) { client in
            let path = "/v1/rides/\(ride.id)/messages"
            #expect(try await client.call(.post, path, as: world.passenger, json: #"{"preset":"guide_dog"}"#).status == .created)
            #expect(try await client.call(.post, path, as: world.passenger, json: #"{"text":"By the main door"}"#).status == .created)
            let refused = try await client.call(.post, path, as: world.passenger, json: #"{"text":"Hello?"}"#)
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited" && refused.headers[.retryAfter] == "30")
            let sent = try await world.store.events(rideID: ride.id, after: 0).filter { $0.kind == .passengerMessage }
            #expect(sent.count == 2 && sent.last?.detail == "By the main door", "the refused one reached no stream")
            clock.advance(30)
            #expect(try await client.call(.post, path, as: world.passenger, json: #"{"text":"Hello?"}"#).status == .created)
        }
    }

    /// The dispatcher sign-in form takes tokens too, so guessing through it is limited alike.
    @Test func dispatcherSignInShareTheFailureLimit() async throws {
        let world = try await World.make(.sqlite)
        let clock = SteppedClock()
        try await world.app(configure: {
            $0.now = clock.reading
            $0.rateLimits.authenticationFailures = .perMinute(2)
        }).test(.live) { client in
            #expect(try await client.form(.post, "/dispatch/login", "token=rb_guess").status == .unauthorized)
            #expect(try await client.form(.post, "/dispatch/login", "token=rb_\(String(repeating: "B", count: 43))").status == .unauthorized)
            let limited = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)")
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] == "30")
            #expect(limited.text.contains("Too many attempts"))
            // And the API from the same address.
            #expect(try await client.call(.get, "/v1/rides", as: world.dispatcher).status == .tooManyRequests)
        }
    }
}
