import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// `GET`/`PUT /v1/me/language` on both stores (issue 26): every role reads and keeps its own
/// language, each account only its own; a value outside the phrasebook's, a missing or unknown
/// field, or no sign-in is refused and changes nothing.
@Suite("The caller's own language", .timeLimit(.minutes(2)))
struct AccountLanguageAPITests {
    @Test(arguments: StoreKind.available)
    func everyRoleKeepsItsOwnLanguage(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let path = "/v1/me/language"
            let none = try await client.call(.get, path, as: world.driver)
            #expect(none.status == .ok && none.text.contains(#""language":null"#), "\(none.text)")

            let driver = try await client.call(.put, path, as: world.driver, json: #"{"language":"es"}"#)
            #expect(driver.status == .ok && driver.string("language") == "es", "\(driver.text)")
            #expect(try await client.call(.get, path, as: world.driver).string("language") == "es")
            #expect(try await world.store.accountLanguage(accountID: world.driver.id) == "es")
            // The passenger's is hers: still none, then French, the driver's untouched.
            #expect(try await client.call(.get, path, as: world.passenger).text.contains(#""language":null"#))
            #expect(try await client.call(.put, path, as: world.passenger, json: #"{"language":"fr"}"#).status == .ok)
            #expect(try await client.call(.get, path, as: world.passenger).string("language") == "fr")
            #expect(try await client.call(.get, path, as: world.driver).string("language") == "es")
            // Any role: dispatchers and admins too.
            for member in [world.dispatcher, world.admin] {
                #expect(try await client.call(.put, path, as: member, json: #"{"language":"en"}"#).status == .ok)
                #expect(try await client.call(.get, path, as: member).string("language") == "en")
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func badValuesAreRefusedAndChangeNothing(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let path = "/v1/me/language"
            #expect(try await client.call(.put, path, as: world.driver, json: #"{"language":"es"}"#).status == .ok)
            for body in [#"{"language":"de"}"#, #"{"language":"ES"}"#, #"{"language":""}"#, #"{"language":null}"#, #"{"language":7}"#,
                         #"{}"#, #"{"language":"fr","voice":"x"}"#, "not json", ""] {
                let refused = try await client.call(.put, path, as: world.driver, json: body)
                #expect(refused.status == .badRequest, "\(body): \(refused.text)")
                #expect(["invalid_field", "invalid_json"].contains(refused.errorCode ?? ""), "\(body): \(refused.text)")
                #expect(!refused.errorMessage.isEmpty, "\(body): \(refused.text)")
            }
            let named = try await client.call(.put, path, as: world.driver, json: #"{"language":"de"}"#)
            #expect(named.errorCode == "invalid_field" && named.errorField == "language", "\(named.text)")
            #expect(named.errorMessage.contains("en, es, fr"), "\(named.errorMessage)")
            #expect(try await world.store.accountLanguage(accountID: world.driver.id) == "es", "nothing changed")
            // No sign-in: 401 for both, nothing changed.
            #expect(try await client.call(.get, path, as: nil).status == .unauthorized)
            #expect(try await client.call(.put, path, as: nil, json: #"{"language":"fr"}"#).status == .unauthorized)
            #expect(try await world.store.accountLanguage(accountID: world.driver.id) == "es")
            // Only GET and PUT on the path.
            let post = try await client.call(.post, path, as: world.driver, json: #"{"language":"fr"}"#)
            #expect(post.status == .methodNotAllowed, "\(post.text)")
        }
    }
}
