import Guide
import Phrasebook
import RideClient

/// Which language this device speaks for its person (issue 26): a `--language` flag for this
/// run, else the saved setting (`settings set --language`), else the signed-in account's
/// (`GET /v1/me/language`: the driver's device speaks the driver's, the passenger's hers), else
/// English. The settings file always holds a language once anything was saved (sign-in writes
/// it), so a saved English counts as "not chosen here" and the account's language applies;
/// `settings set --language` while signed in sets the account too, so the two agree.
enum DeviceLanguage {
    /// Whether the flag or the saved setting already decides, without asking the account.
    static func decidedHere(flag: String?, settings: Settings) -> Bool {
        flag != nil || settings.phraseLanguage != .standard
    }

    /// The account's language; nil when it has none or the service does not answer (English then).
    static func account(using client: any RideCommandService) async -> Language? {
        guard let code = try? await client.accountLanguage() else { return nil }
        return Language(rawValue: code)
    }

    /// `settings` with the account's language when neither the flag nor the saved setting decides.
    static func apply(to settings: inout Settings, flag: String?, service: ServiceOptions) async {
        guard !decidedHere(flag: flag, settings: settings), let client = try? service.client(waits: false) else { return }
        if let language = await account(using: client) { settings.language = language.rawValue }
        await client.shutdown()
    }

    /// The phrasebook for a device already talking to the service as `client`.
    static func book(settings: Settings?, using client: any RideCommandService) async -> Phrasebook {
        let settings = settings ?? .standard
        if !decidedHere(flag: nil, settings: settings), let language = await account(using: client) {
            return Phrasebook(language)
        }
        return Phrasebook(settings.phraseLanguage)
    }
}
