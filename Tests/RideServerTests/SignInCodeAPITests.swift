import Foundation
import HummingbirdTesting
import RideBeaconTesting
import RideServer
@testable import RideStore
import Testing

/// Sign-in codes, own tokens, and saved places over HTTP.
@Suite("API: sign-in codes, tokens, saved places")
struct SignInCodeAPITests {
    @Test(arguments: StoreKind.available)
    func aCodeSignsInOnceAndEachRefusalHasItsOwnCode(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let clock = SteppedClock(Date())
        try await world.app(configure: { $0.now = clock.reading }).test(.router) { client in
            let issued = try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin)
            #expect(issued.status == .created)
            let code = try #require(issued.string("code"))
            #expect(code.count == 9 && code.filter(\.isNumber).count == 8, "eight digits in two groups: \(code)")
            #expect(try await client.call(.post, "/v1/accounts/\(world.admin.id)/sign-in-codes", as: world.dispatcher).status == .forbidden,
                    "dispatchers issue no codes (SignInCodePolicy)")
            #expect(try await client.call(.post, "/v1/accounts/\(world.admin.id)/sign-in-codes", as: world.passenger).status == .forbidden)
            let tokensBefore = try await world.store.tokens(accountID: world.passenger.id).count

            let unknownDigits = code == "0000 0000" ? "1111 1111" : "0000 0000"
            let unknown = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(unknownDigits)"}"#)
            #expect(unknown.status == .unauthorized && unknown.errorCode == "invalid_sign_in_code")
            let malformed = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"12ab"}"#)
            #expect(malformed.status == .badRequest && malformed.errorField == "code")

            let signedIn = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(code.replacingOccurrences(of: " ", with: "-"))"}"#)
            #expect(signedIn.status == .created)
            let token = try #require(signedIn.string("token"))
            #expect((signedIn.json["account"] as? [String: Any])?["id"] as? String == world.passenger.id)
            let member = Member(account: world.passenger.account, token: token)
            #expect(try await client.call(.get, "/v1/ride-requests", as: member).status == .ok, "the new token works")

            let reused = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(code)"}"#)
            #expect(reused.status == .unauthorized && reused.errorCode == "sign_in_code_used")
            #expect(try await world.store.tokens(accountID: world.passenger.id).count == tokensBefore + 1, "refusals add no token")

            let later = try #require(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin).string("code"))
            clock.advance(24 * 3600 + 1)
            let expired = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(later)"}"#)
            #expect(expired.status == .unauthorized && expired.errorCode == "sign_in_code_expired")
            #expect(try await world.store.tokens(accountID: world.passenger.id).count == tokensBefore + 1)

            // Own tokens: listed with the current one marked, revoked one at a time.
            let listed = try await client.call(.get, "/v1/tokens", as: member)
            let tokens = try #require(listed.json["tokens"] as? [[String: Any]])
            #expect(tokens.count == tokensBefore + 1 && tokens.filter { $0["current"] as? Bool == true }.count == 1)
            let newID = try #require(signedIn.string("tokenId"))
            let revoked = try await client.call(.post, "/v1/tokens/\(newID)/revoke", as: world.passenger)
            #expect(revoked.status == .ok && revoked.json["revokedAt"] != nil)
            #expect(try await client.call(.get, "/v1/ride-requests", as: member).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/ride-requests", as: world.passenger).status == .ok, "the other token still works")
            #expect(try await client.call(.post, "/v1/tokens/\(newID)/revoke", as: world.otherPassenger).status == .notFound)
        }
    }

    @Test(arguments: StoreKind.available)
    func issuingIsLimitedPerAccountPerDay(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            for _ in 0..<SignInCodeHash.perDay {
                #expect(try await client.call(.post, "/v1/accounts/\(world.driver.id)/sign-in-codes", as: world.admin).status == .created)
            }
            let refused = try await client.call(.post, "/v1/accounts/\(world.driver.id)/sign-in-codes", as: world.admin)
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited")
            #expect(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin).status == .created)
        }
    }

    @Test(arguments: StoreKind.available)
    func savedPlacesBelongToTheAccount(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            #expect(try await client.call(.post, "/v1/places", as: world.passenger, json: #"{"name":"home","address":"Main St 1"}"#).status == .created)
            #expect(try await client.call(.post, "/v1/places", as: world.passenger, json: #"{"name":"home","address":"Elm St 2"}"#).status == .created)
            #expect(try await client.call(.post, "/v1/places", as: world.passenger, json: #"{"name":"","address":"x"}"#).errorField == "name")
            let listed = try await client.call(.get, "/v1/places", as: world.passenger)
            #expect(listed.json["places"] as? [[String: String]] == [["name": "home", "address": "Elm St 2"]])
            #expect((try await client.call(.get, "/v1/places", as: world.otherPassenger).json["places"] as? [Any])?.isEmpty == true)
            #expect(try await client.call(.post, "/v1/places/home/remove", as: world.otherPassenger).status == .notFound)
            #expect(try await client.call(.post, "/v1/places/home/remove", as: world.passenger).status == .ok)
            #expect((try await client.call(.get, "/v1/places", as: world.passenger).json["places"] as? [Any])?.isEmpty == true)
        }
    }
}
