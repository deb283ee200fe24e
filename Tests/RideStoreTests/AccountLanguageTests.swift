import Foundation
import RideBeaconTesting
import RideStore
import Testing

/// Issue 26: an account's language, kept server-side on both stores (migration v11-account-language).
@Suite("Store: an account's language")
struct AccountLanguageTests {
    @Test(arguments: StoreKind.available)
    func keptChangedAndForgotten(kind: StoreKind) async throws {
        let store = try await kind.make()
        let ana = try await store.createAccount(NewAccount(role: .passenger, displayName: "Ana"))
        let ben = try await store.createAccount(NewAccount(role: .driver, displayName: "Ben", vehicle: "blue Prius"))
        #expect(try await store.accountLanguage(accountID: ana.id) == nil, "none chosen yet")
        try await store.setAccountLanguage(accountID: ana.id, language: "es")
        try await store.setAccountLanguage(accountID: ben.id, language: "fr")
        #expect(try await store.accountLanguage(accountID: ana.id) == "es")
        #expect(try await store.accountLanguage(accountID: ben.id) == "fr", "each account its own")
        try await store.setAccountLanguage(accountID: ana.id, language: "fr")
        #expect(try await store.accountLanguage(accountID: ana.id) == "fr")
        try await store.setAccountLanguage(accountID: ana.id, language: nil)
        #expect(try await store.accountLanguage(accountID: ana.id) == nil)
        await #expect(throws: StoreError.self) { try await store.setAccountLanguage(accountID: "no-such-account", language: "es") }
        #expect(try await store.accountLanguage(accountID: "no-such-account") == nil, "the refusal wrote nothing")
    }
}
