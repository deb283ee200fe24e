import Hummingbird
import Phrasebook
import RideStore

/// `/v1/me/language` (issue 26): the caller's own language, kept with the account so each
/// person's devices speak that person's language (the driver's device the driver's, the
/// passenger's hers). Any signed-in role; the passengers' page picker writes the same value.
struct LanguageRoutes<Context: RideRequestContext>: Sendable {
    let store: any AccountStore

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.get("/me/language", use: show)
        routes.put("/me/language", use: change)
    }

    /// `{"language": "es"}`, or `{"language": null}` when the account has not chosen one.
    @Sendable func show(_ request: Request, context: Context) async throws -> AccountLanguage {
        let account = try context.caller()
        let kept: String?
        do { kept = try await store.accountLanguage(accountID: account.id) } catch let error as StoreError { throw APIError(error) }
        return AccountLanguage(language: kept.flatMap(Language.init(rawValue:))?.rawValue)
    }

    /// Replaces the account's language; a value outside the phrasebook's is a 400 that changes nothing.
    @Sendable func change(_ request: Request, context: Context) async throws -> AccountLanguage {
        let account = try context.caller()
        let body = try await request.decodeStrict(LanguageBody.self, context: context)
        do {
            try await store.setAccountLanguage(accountID: account.id, language: body.language)
        } catch let error as StoreError { throw APIError(error) }
        return AccountLanguage(language: body.language)
    }
}

/// `PUT /v1/me/language`'s body: one of the phrasebook's language codes.
struct LanguageBody: StrictBody {
    static let fields: Set<String> = ["language"]
    var language: String

    func validate() throws {
        guard Language(rawValue: language) != nil else {
            throw BodyError.invalidField("language", "must be one of \(Language.codes)")
        }
    }
}

/// The caller's language as the API shows it.
struct AccountLanguage: Codable, Sendable, ResponseEncodable {
    var language: String?

    // `null` written out when none is chosen (the schema's field is always there).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(language, forKey: .language)
    }
}

extension RouteRegistrar {
    func put(_ path: String, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator) {
        catalog.note(prefix + path, .put)
        group.put(RouterPath(stringLiteral: path), use: handler)
    }
}
