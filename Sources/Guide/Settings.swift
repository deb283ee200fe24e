import Foundation
import GuideAudio
import Phrasebook
import RideSession

/// The user's persistent choices (Assistive-Vision style): how the guide sounds and which ride
/// service it talks to. Stored as flat JSON in `$XDG_CONFIG_HOME/ridebeacon/settings.json`
/// (mode 0600: it may hold an API token). Flags override the file for one run; `settings set`
/// writes it.
public struct Settings: Equatable, Sendable {
    public var voice: VoiceSettings
    public var verbosity: Verbosity
    /// Language of the spoken phrases (the phrase table); espeak-ng's voice is `voice.voice`.
    public var language: String
    /// Base URL of the ride service, e.g. `http://127.0.0.1:8080`.
    public var server: String?
    /// API token of this device's account.
    public var token: String?
    /// Vibrations through feedbackd beside the sounds (`on`), none, or instead of them (`only`).
    public var haptics: HapticsMode = .on
    /// Which side of the road traffic keeps to where she is picked up (issue 35): a parked car's
    /// kerb is on that side of it, which is how the guide tells whether the car's kerb is on her
    /// side of the street. Right-hand by default; `left` for the UK, Japan, India, Australia ….
    public var traffic: TrafficSide = .right

    public static let standard = Settings(voice: .standard, verbosity: .brief, language: "en", server: nil, token: nil)

    public init(voice: VoiceSettings, verbosity: Verbosity, language: String, server: String?, token: String?) {
        self.voice = voice
        self.verbosity = verbosity
        self.language = language
        self.server = server
        self.token = token
    }

    /// The first invalid field, named, with what is allowed; nil when all are valid.
    public var validationError: String? {
        if let problem = voice.validationError { return problem }
        if !PhraseLanguage.isSupported(language) {
            return "language must be one of \(PhraseLanguage.supported.joined(separator: ", ")), not \"\(language)\""
        }
        if let server {
            guard let url = URL(string: server), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                return "server must be an http:// or https:// URL, not \"\(server)\""
            }
        }
        if let token, token.isEmpty || token.contains(where: { $0.isWhitespace }) {
            return "token must be a non-empty API token without spaces"
        }
        return nil
    }
}

/// Languages the phrasebook has been written in (module Phrasebook: en, es, fr).
public enum PhraseLanguage {
    public static let supported = Language.allCases.map(\.rawValue)
    public static func isSupported(_ code: String) -> Bool { supported.contains(code) }
}

extension Settings {
    /// The phrasebook language (a valid setting always has one).
    public var phraseLanguage: Language { Language(code: language) ?? .en }

    /// The voice that speaks `phraseLanguage`: the chosen espeak-ng voice when it speaks that
    /// language ("es-419" for Spanish), else the language's own voice (the English default
    /// "en" would read Spanish sentences with English sounds).
    public var speakingVoice: VoiceSettings {
        var speaking = voice
        if !phraseLanguage.isSpoken(by: voice.voice) {
            // Keep a variant ("en+f3" → "es+f3").
            let variant = voice.voice.firstIndex(of: "+").map { String(voice.voice[$0...]) } ?? ""
            speaking.voice = phraseLanguage.espeakVoice + variant
        }
        return speaking
    }
}

public struct SettingsError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension Settings {
    /// `$XDG_CONFIG_HOME/ridebeacon/settings.json`, else `~/.config/ridebeacon/settings.json`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/ridebeacon/settings.json"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.config/ridebeacon/settings.json"
    }

    private static let keys: Set<String> = ["voice", "rate", "pitch", "volume", "verbosity", "language", "server", "token", "haptics", "traffic"]

    /// Reads `path`; a missing file is the standard settings. Every problem names the file and key.
    public static func load(from path: String) throws(SettingsError) -> Settings {
        guard FileManager.default.fileExists(atPath: path) else { return .standard }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError("\(path): cannot read the settings file")
        }
        return try parse(data, path: path)
    }

    public static func parse(_ data: Data, path: String) throws(SettingsError) -> Settings {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw SettingsError("\(path): settings must be a JSON object")
            }
            object = parsed
        } catch let error as SettingsError {
            throw error
        } catch {
            throw SettingsError("\(path): not valid JSON")
        }
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw SettingsError("\(path): unknown setting \"\(unknown)\" (known: \(keys.sorted().joined(separator: ", ")))")
        }
        let form: FileForm
        do {
            form = try JSONDecoder().decode(FileForm.self, from: data)
        } catch let DecodingError.typeMismatch(type, context) {
            let key = context.codingPath.first?.stringValue ?? "value"
            throw SettingsError("\(path): \(key) must be \(type == String.self ? "a string" : "a whole number")")
        } catch let DecodingError.dataCorrupted(context) {
            // Foundation leaves the path empty for 1.5-as-Int; find the key ourselves.
            let key = context.codingPath.first?.stringValue
                ?? ["rate", "pitch", "volume"].first { object[$0].map { !($0 is Int) || "\($0)".contains(".") } ?? false }
                ?? "value"
            throw SettingsError("\(path): \(key) must be a whole number")
        } catch {
            throw SettingsError("\(path): not valid settings JSON")
        }
        var settings = Settings.standard
        if let voice = form.voice { settings.voice.voice = voice }
        if let rate = form.rate { settings.voice.rate = rate }
        if let pitch = form.pitch { settings.voice.pitch = pitch }
        if let volume = form.volume { settings.voice.volume = volume }
        if let verbosity = form.verbosity {
            guard let parsed = Verbosity(rawValue: verbosity) else {
                throw SettingsError("\(path): verbosity must be one of \(Verbosity.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(verbosity)\"")
            }
            settings.verbosity = parsed
        }
        if let language = form.language { settings.language = language }
        if let haptics = form.haptics {
            guard let parsed = HapticsMode(rawValue: haptics) else {
                throw SettingsError("\(path): haptics must be one of \(HapticsMode.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(haptics)\"")
            }
            settings.haptics = parsed
        }
        if let traffic = form.traffic {
            guard let parsed = TrafficSide(rawValue: traffic) else {
                throw SettingsError("\(path): \(TrafficSide.usage), not \"\(traffic)\"")
            }
            settings.traffic = parsed
        }
        settings.server = form.server
        settings.token = form.token
        if let problem = settings.validationError { throw SettingsError("\(path): \(problem)") }
        return settings
    }

    private struct FileForm: Decodable {
        var voice: String?
        var rate: Int?
        var pitch: Int?
        var volume: Int?
        var verbosity: String?
        var language: String?
        var server: String?
        var token: String?
        var haptics: String?
        var traffic: String?
    }

    /// The file's JSON: every key, sorted, so diffs of the file stay readable.
    public func encoded() -> Data {
        var object: [String: Any] = [
            "voice": voice.voice, "rate": voice.rate, "pitch": voice.pitch, "volume": voice.volume,
            "verbosity": verbosity.rawValue, "language": language, "haptics": haptics.rawValue,
            "traffic": traffic.rawValue,
        ]
        if let server { object["server"] = server }
        if let token { object["token"] = token }
        // Cannot fail: the object holds only strings and integers.
        return (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    }

    /// Validates, then replaces the file atomically (temp file + rename) with mode 0600.
    public func save(to path: String) throws(SettingsError) {
        if let problem = validationError { throw SettingsError("\(path): \(problem)") }
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let temporary = path + ".tmp"
            guard FileManager.default.createFile(atPath: temporary, contents: encoded(),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw SettingsError("\(path): cannot write the settings file")
            }
            if rename(temporary, path) != 0 { throw SettingsError("\(path): cannot replace the settings file") }
        } catch let error as SettingsError {
            throw error
        } catch {
            throw SettingsError("\(path): cannot create \(directory)")
        }
    }
}
