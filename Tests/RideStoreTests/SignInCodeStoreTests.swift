import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// Sign-in codes and tokens in the store (issue 24), on both stores.
@Suite("Store contract: sign-in codes and web session tokens")
struct SignInCodeStoreTests {
    static func code(for account: Account, by issuer: String = "admin-1", now: Date = Date()) -> SignInCodeRecord {
        let created = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        return SignInCodeRecord(id: UUID().uuidString.lowercased(), accountID: account.id, issuedBy: issuer,
                                createdAt: created, expiresAt: created.addingTimeInterval(86_400))
    }

    @Test(arguments: StoreKind.available)
    func revokingTokensEndsUnusedCodesAndRedeemingNamesTheIssuer(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let kept = Self.code(for: cast.passenger)
        _ = try await store.addSignInCode(kept, codeHash: Data("kept".utf8), perDay: 10)
        let signedIn = try await store.redeemSignInCode(codeHash: Data("kept".utf8), tokenSecretHash: Data("t1".utf8), tokenExpiresAt: nil, now: Date())
        #expect(signedIn.issuedBy == "admin-1" && signedIn.codeID == kept.id)

        _ = try await store.addSignInCode(Self.code(for: cast.driver), codeHash: Data("driver".utf8), perDay: 10)
        _ = try await store.revokeTokens(accountID: cast.driver.id)
        await #expect(throws: StoreError.signInRefused(.expired)) {
            _ = try await store.redeemSignInCode(codeHash: Data("driver".utf8), tokenSecretHash: Data("t2".utf8), tokenExpiresAt: nil, now: Date())
        }
        #expect(try await store.tokens(accountID: cast.driver.id).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func admitRefusingLeavesTheCodeUnspent(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        _ = try await store.addSignInCode(Self.code(for: cast.driver), codeHash: Data("d".utf8), perDay: 10)
        struct NotHere: Error {}
        await #expect(throws: NotHere.self) {
            _ = try await store.redeemSignInCode(codeHash: Data("d".utf8), tokenSecretHash: Data("t".utf8), tokenExpiresAt: nil, now: Date()) { _ in throw NotHere() }
        }
        #expect(try await store.tokens(accountID: cast.driver.id).isEmpty)
        let later = try await store.redeemSignInCode(codeHash: Data("d".utf8), tokenSecretHash: Data("t".utf8), tokenExpiresAt: nil, now: Date())
        #expect(later.account == cast.driver)
    }

    @Test(arguments: StoreKind.available)
    func extendingMovesOnlyALiveExpiringToken(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let now = Date()
        let web = try await store.addToken(accountID: cast.passenger.id, secretHash: Data("web".utf8), expiresAt: now.addingTimeInterval(60))
        let forever = try await store.addToken(accountID: cast.passenger.id, secretHash: Data("forever".utf8))
        #expect(try await store.extendToken(id: web.id, expiresAt: now.addingTimeInterval(3600), now: now))
        let moved = try #require(try await store.token(secretHash: Data("web".utf8))?.expiresAt)
        #expect(abs(moved.timeIntervalSince(now.addingTimeInterval(3600))) < 0.002)
        #expect(try await store.extendToken(id: forever.id, expiresAt: now.addingTimeInterval(3600), now: now) == false, "a token without expiry stays so")
        #expect(try await store.extendToken(id: web.id, expiresAt: now.addingTimeInterval(9000), now: now.addingTimeInterval(7200)) == false, "an expired one is not revived")
        _ = try await store.revokeToken(id: web.id, accountID: cast.passenger.id)
        #expect(try await store.extendToken(id: web.id, expiresAt: now.addingTimeInterval(3600), now: now) == false, "nor a revoked one")
    }
}
