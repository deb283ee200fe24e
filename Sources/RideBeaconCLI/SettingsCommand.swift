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
            try reportingFailures {
                let path = Settings.defaultPath()
                saved = try loadSettings()
                for line in SettingsCommand.lines(saved) { Say.line(line) }
                Say.line("file: \(path)\(FileManager.default.fileExists(atPath: path) ? "" : " (not created yet; these are the defaults)")")
            }
            for line in await SettingsCommand.accountLines(saved) { Say.line(line) }
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

    /// The signed-in account's language and the one this device speaks (`DeviceLanguage`'s
    /// order: the saved setting, else the account's, else English); nothing when not signed in.
    static func accountLines(_ settings: Settings) async -> [String] {
        guard let client = try? ServiceOptions.parse([]).client(waits: false) else { return [] }
        let answer: String??
        do { answer = try await client.accountLanguage() } catch { answer = nil }
        await client.shutdown()
        guard let code = answer else {
            return ["account language: unknown (cannot reach the ride service at \(client.server))"]
        }
        let speaks: String
        if DeviceLanguage.decidedHere(flag: nil, settings: settings) {
            speaks = "\(settings.language) (saved on this device)"
        } else if let account = code.flatMap(Language.init(rawValue:)) {
            speaks = "\(account.rawValue) (your account's)"
        } else {
            speaks = "\(settings.language) (the default)"
        }
        return ["account language: \(code ?? "not set")", "this device speaks: \(speaks)"]
    }

    static func lines(_ settings: Settings) -> [String] {
        [
            "voice: \(settings.voice.voice)",
            "rate: \(settings.voice.rate) words per minute",
            "pitch: \(settings.voice.pitch)",
            "volume: \(settings.voice.volume) percent",
            "verbosity: \(settings.verbosity.rawValue)",
            "language: \(settings.language)",
            "haptics: \(settings.haptics.rawValue)",
            "traffic: keeps to the \(settings.traffic.rawValue)",
            "server: \(settings.server ?? "not set")",
            "token: \(settings.token == nil ? "not set" : "set")",
        ]
    }
}
