import ArgumentParser
import Guide
import GuideAudio

/// How the guide sounds, as flags: `passenger guide` applies them for one run, `settings set`
/// saves them.
struct VoiceOptions: ParsableArguments {
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
    @Option(help: ArgumentHelp("Vibrations through feedbackd: on (beside the sounds), off, or only (silent guidance).", valueName: "on|off|only"))
    var haptics: String?

    /// Overrides `settings` with the flags given; errors name the setting as `name(setting)` does
    /// ("--verbosity" for a one-run flag, "verbosity" for a saved setting).
    func apply(to settings: inout Settings, naming name: (String) -> String) throws(CommandLineFailure) {
        if let voice { settings.voice.voice = voice }
        if let rate { settings.voice.rate = rate }
        if let pitch { settings.voice.pitch = pitch }
        if let volume { settings.voice.volume = volume }
        if let verbosity {
            guard let level = Verbosity(rawValue: verbosity) else {
                throw CommandLineFailure("\(name("verbosity")) must be one of \(Verbosity.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(verbosity)\"")
            }
            settings.verbosity = level
        }
        if let language { settings.language = language }
        if let haptics {
            guard let mode = HapticsMode(rawValue: haptics) else {
                throw CommandLineFailure("\(name("haptics")) must be one of \(HapticsMode.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(haptics)\"")
            }
            settings.haptics = mode
        }
    }
}
