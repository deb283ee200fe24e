import ArgumentParser
import BlueZ
import Foundation
import RideSession
import Guide
import GuideAudio
import Phrasebook
import RideClient

/// `ridebeacon settings show|set`: the persistent voice, verbosity, language, server and token.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or change your saved settings (voice, speech, verbosity, language, ride service).",
        discussion: "Saved in $XDG_CONFIG_HOME/ridebeacon/settings.json (else ~/.config/ridebeacon/settings.json), readable only by you.",
        subcommands: [Show.self, Set.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the settings, one per line. The token is not shown.",
            discussion: "When signed in, also your account's language and which language this device speaks.")

        func run() async throws {
            var saved = Settings.standard
            try reportingFailures { saved = try loadSettings() }
            // The account is asked first: its language may be the one these lines are in.
            let account = await SettingsCommand.accountAnswer()
            let environment = ProcessInfo.processInfo.environment
            let book = SettingsCommand.book(saved, account: account, environment: environment)
            let path = Settings.defaultPath()
            for line in SettingsCommand.lines(saved, in: book) { Say.line(line) }
            Say.line(book(FileManager.default.fileExists(atPath: path) ? .settingsFile : .settingsFileNotCreated, ["path": .text(path)]))
            for line in SettingsCommand.accountLines(saved, account: account, environment: environment, in: book) { Say.line(line) }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change settings; the others keep their values.",
            discussion: """
                Nothing is saved when any value is out of range; the error names the setting and what is allowed. \
                When signed in, --language is also saved to your account, so your other devices speak it too \
                (the local setting applies even when the ride service cannot be reached).
                """)

        @OptionGroup var voiceOptions: VoiceOptions
        @Option(help: ArgumentHelp("Ride service URL, for example https://rides.example.org.", valueName: "URL"))
        var server: String?
        @Option(help: ArgumentHelp("API token of your account.", valueName: "TOKEN"))
        var token: String?
        @Option(help: ArgumentHelp("Which side of the road traffic keeps to where you are picked up (right or left): the guide says which side of the street the car's kerb is on from it.",
                                   valueName: "right|left"))
        var traffic: String?

        func run() async throws {
            try await save(to: Settings.defaultPath(), feedbackdAnswers: { await SettingsCommand.feedbackdAnswers() })
            if let language = voiceOptions.language { await SettingsCommand.saveToAccount(language) }
        }

        /// Saves the settings file at `path`; vibrations asked for where feedbackd does not
        /// answer (`feedbackdAnswers`) are saved and warned about in the device's language,
        /// saying what the guide does instead (issue 37, point 13).
        func save(to path: String, feedbackdAnswers: () async -> Bool) async throws {
            var saved: Settings?
            try reportingFailures {
                var settings: Settings
                do { settings = try Settings.load(from: path) } catch { throw CommandLineFailure(String(describing: error)) }
                try voiceOptions.apply(to: &settings) { $0 }
                if let server { settings.server = server }
                if let token { settings.token = token }
                if let traffic {
                    guard let side = TrafficSide(rawValue: traffic) else {
                        throw CommandLineFailure("--traffic: \(TrafficSide.usage), not \"\(traffic)\"")
                    }
                    settings.traffic = side
                }
                if let problem = settings.validationError { throw CommandLineFailure(problem) }
                do { try settings.save(to: path) } catch { throw CommandLineFailure(String(describing: error)) }
                Say.line(DeviceLanguage.local(settings: settings, environment: ProcessInfo.processInfo.environment)(.cliSettingsSaved,
                                                                                                                 ["path": .text(path)]))
                saved = settings
            }
            guard let saved, voiceOptions.haptics != nil, saved.haptics.vibrates, !(await feedbackdAnswers()) else { return }
            let book = DeviceLanguage.local(settings: saved, environment: ProcessInfo.processInfo.environment)
            Say.line(book(saved.haptics.sounds ? .hapticsOnSavedWithoutFeedbackd : .hapticsOnlySavedWithoutFeedbackd))
        }
    }

    /// Whether feedbackd answers on this session's bus (the guide's vibrations need it).
    static func feedbackdAnswers() async -> Bool {
        guard let client = try? await FeedbackClient.open() else { return false }
        await client.close()
        return true
    }

    /// The account's language too, when this device is signed in (a server and a token from the
    /// environment or the settings file); one plain line either way.
    static func saveToAccount(_ language: String) async {
        guard let client = try? ServiceOptions.parse([]).client(waits: false) else { return }
        // Said in the language just chosen: the next thing this device says is in it too.
        let book = Phrasebook(code: language)
        do {
            try await client.setAccountLanguage(language)
            Say.line(book(.cliAccountLanguageSaved, ["language": .text(language)]))
        } catch {
            switch error {
            case .rejected(let problem):
                Say.line(book(.cliAccountLanguageRefused, ["reason": .text(problem.message)]))
            default:
                Say.line(book(.cliAccountLanguageOffline, ["server": .text(client.server), "language": .text(language)]))
            }
        }
        await client.shutdown()
    }

    /// What the ride service said of the signed-in account's language: nil when this device is
    /// not signed in; `.unreachable` names the server that did not answer.
    enum AccountAnswer: Equatable {
        case language(String?)
        case unreachable(server: String)
    }

    static func accountAnswer() async -> AccountAnswer? {
        guard let client = try? ServiceOptions.parse([]).client(waits: false) else { return nil }
        let answer: AccountAnswer
        do { answer = .language(try await client.accountLanguage()) } catch { answer = .unreachable(server: client.server) }
        await client.shutdown()
        return answer
    }

    /// The book `settings show` speaks in, by `DeviceLanguage`'s one rule, from the answer
    /// already fetched (the saved setting, else the account's, else the system's locale).
    static func book(_ settings: Settings, account: AccountAnswer?, environment: [String: String]) -> Phrasebook {
        if !DeviceLanguage.decidedHere(flag: nil, settings: settings), case .language(let code?) = account,
           let language = Language(rawValue: code) {
            return Phrasebook(language)
        }
        return DeviceLanguage.local(settings: settings, environment: environment)
    }

    /// The signed-in account's language and the one this device speaks (`DeviceLanguage`'s
    /// order: the saved setting, else the account's, else the system's, else English); nothing
    /// when not signed in.
    static func accountLines(_ settings: Settings, account: AccountAnswer?, environment: [String: String], in book: Phrasebook) -> [String] {
        switch account {
        case nil: return []
        case .unreachable(let server): return [book(.settingsAccountLanguageUnknown, ["server": .text(server)])]
        case .language(let code):
            let speaks: String
            if DeviceLanguage.decidedHere(flag: nil, settings: settings) {
                speaks = book(.settingsSpeaksSaved, ["language": .text(settings.language)])
            } else if let account = code.flatMap(Language.init(rawValue:)) {
                speaks = book(.settingsSpeaksAccount, ["language": .text(account.rawValue)])
            } else if let system = DeviceLanguage.system(environment) {
                speaks = book(.settingsSpeaksSystem, ["language": .text(system.rawValue)])
            } else {
                speaks = book(.settingsSpeaksDefault, ["language": .text(settings.language)])
            }
            let accountLine = code.map { book(.settingsAccountLanguage, ["language": .text($0)]) } ?? book(.settingsAccountLanguageNotSet)
            return [accountLine, speaks]
        }
    }

    static func lines(_ settings: Settings, in book: Phrasebook = .english) -> [String] {
        [
            book(.settingsVoice, ["voice": .text(settings.voice.voice)]),
            book(.settingsRate, ["rate": .text("\(settings.voice.rate)")]),
            book(.settingsPitch, ["pitch": .text("\(settings.voice.pitch)")]),
            book(.settingsVolume, ["volume": .text("\(settings.voice.volume)")]),
            book(.settingsVerbosity, ["verbosity": .text(settings.verbosity.rawValue)]),
            book(.settingsLanguage, ["language": .text(settings.language)]),
            book(.settingsHaptics, ["haptics": .text(settings.haptics.rawValue)]),
            book(settings.traffic == .left ? .settingsTrafficLeft : .settingsTrafficRight),
            settings.server.map { book(.settingsServer, ["server": .text($0)]) } ?? book(.settingsServerNotSet),
            book(settings.token == nil ? .settingsTokenNotSet : .settingsTokenSet),
        ]
    }
}
