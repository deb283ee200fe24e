import ArgumentParser
import Foundation
import Guide
import GuideAudio

/// `ridebeacon settings show|set`: the persistent voice, verbosity, language, server and token.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or change your saved settings (voice, speech, verbosity, language, ride service).",
        discussion: "Saved in $XDG_CONFIG_HOME/ridebeacon/settings.json (else ~/.config/ridebeacon/settings.json), readable only by you.",
        subcommands: [Show.self, Set.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the settings, one per line. The token is not shown.")

        func run() throws {
            try reportingFailures {
                let path = Settings.defaultPath()
                let settings = try loadSettings()
                for line in SettingsCommand.lines(settings) { Say.line(line) }
                Say.line("file: \(path)\(FileManager.default.fileExists(atPath: path) ? "" : " (not created yet; these are the defaults)")")
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change settings; the others keep their values.",
            discussion: "Nothing is saved when any value is out of range; the error names the setting and what is allowed.")

        @Option(help: ArgumentHelp("espeak-ng voice, for example en or en-us.", valueName: "NAME"))
        var voice: String?
        @Option(help: ArgumentHelp("Speech rate, 80 to 450 words per minute.", valueName: "WPM"))
        var rate: Int?
        @Option(help: ArgumentHelp("Voice pitch, 0 to 99.", valueName: "N"))
        var pitch: Int?
        @Option(help: ArgumentHelp("Volume, 0 to 200 percent.", valueName: "PERCENT"))
        var volume: Int?
        @Option(help: ArgumentHelp("earcons, brief or full.", valueName: "LEVEL"))
        var verbosity: String?
        @Option(help: ArgumentHelp("Language of the spoken phrases: \(PhraseLanguage.supported.joined(separator: ", ")).", valueName: "CODE"))
        var language: String?
        @Option(help: ArgumentHelp("Ride service URL, for example https://rides.example.org.", valueName: "URL"))
        var server: String?
        @Option(help: ArgumentHelp("API token of your account.", valueName: "TOKEN"))
        var token: String?

        func run() throws {
            try reportingFailures {
                let path = Settings.defaultPath()
                var settings = try loadSettings()
                if let voice { settings.voice.voice = voice }
                if let rate { settings.voice.rate = rate }
                if let pitch { settings.voice.pitch = pitch }
                if let volume { settings.voice.volume = volume }
                if let verbosity {
                    guard let level = Verbosity(rawValue: verbosity) else {
                        throw CommandLineFailure("verbosity must be one of \(Verbosity.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(verbosity)\"")
                    }
                    settings.verbosity = level
                }
                if let language { settings.language = language }
                if let server { settings.server = server }
                if let token { settings.token = token }
                if let problem = settings.validationError { throw CommandLineFailure(problem) }
                do { try settings.save(to: path) } catch { throw CommandLineFailure(String(describing: error)) }
                Say.line("Saved \(path).")
            }
        }
    }

    static func lines(_ settings: Settings) -> [String] {
        [
            "voice: \(settings.voice.voice)",
            "rate: \(settings.voice.rate) words per minute",
            "pitch: \(settings.voice.pitch)",
            "volume: \(settings.voice.volume) percent",
            "verbosity: \(settings.verbosity.rawValue)",
            "language: \(settings.language)",
            "server: \(settings.server ?? "not set")",
            "token: \(settings.token == nil ? "not set" : "set")",
        ]
    }
}
