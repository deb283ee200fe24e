import Foundation
import Guide
import Phrasebook
import RideClient

/// Which language this device speaks for its person (issue 26): a `--language` flag for this
/// run, else the saved setting (`settings set --language`), else the signed-in account's
/// (`GET /v1/me/language`: the driver's device speaks the driver's, the passenger's hers), else
/// the system's locale, else English. The settings file always holds a language once anything
/// was saved (sign-in writes it), so a saved English counts as "not chosen here" and the account's language applies;
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
    static func apply(to settings: inout Settings, flag: String?, service: ServiceOptions,
                      environment: [String: String] = ProcessInfo.processInfo.environment) async {
        guard !decidedHere(flag: flag, settings: settings) else { return }
        var language: Language?
        if let client = try? service.client(waits: false) {
            language = await account(using: client)
            await client.shutdown()
        }
        if let language = language ?? system(environment) { settings.language = language.rawValue }
    }

    /// The phrasebook for a device already talking to the service as `client`: the saved
    /// setting, else the account's, else the system's locale (`LC_ALL`, `LC_MESSAGES`, `LANG`).
    static func book(settings: Settings?, using client: any RideCommandService,
                     environment: [String: String] = ProcessInfo.processInfo.environment) async -> Phrasebook {
        let settings = settings ?? .standard
        if !decidedHere(flag: nil, settings: settings), let language = await account(using: client) {
            return Phrasebook(language)
        }
        return local(settings: settings, environment: environment)
    }

    /// The rule without the account: the saved setting, else the system's locale, else English.
    static func local(settings: Settings, environment: [String: String]) -> Phrasebook {
        if decidedHere(flag: nil, settings: settings) { return Phrasebook(settings.phraseLanguage) }
        return Phrasebook(system(environment) ?? settings.phraseLanguage)
    }

    /// The locale's language as POSIX orders its variables (the first one set wins); nil for
    /// "C", "POSIX" or a language the phrasebook does not have.
    static func system(_ environment: [String: String]) -> Language? {
        guard let value = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else {
            return nil
        }
        return Language(code: value)
    }
}
