import Foundation

/// The caller's own language (issue 26, openapi.yaml `/v1/me/language`).
extension RideServiceClient {
    /// The signed-in account's language code ("es"), nil when it has not chosen one.
    public func accountLanguage() async throws(RideClientError) -> String? {
        let answer: AccountLanguageWire = try await send(.GET, "/v1/me/language")
        return answer.language
    }

    /// Keeps `code` ("en", "es", "fr") as the signed-in account's language; a PUT, so retried
    /// like a read. A code the server does not know is `.rejected` (400 `invalid_field`).
    public func setAccountLanguage(_ code: String) async throws(RideClientError) {
        let _: AccountLanguageWire = try await send(.PUT, "/v1/me/language",
                                                    body: Self.encode(AccountLanguageWire(language: code)))
    }
}

struct AccountLanguageWire: Codable, Sendable {
    var language: String?
}
