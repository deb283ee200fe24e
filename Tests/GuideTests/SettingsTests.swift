import Foundation
import Guide
import GuideSimulation
import GuideAudio
import Testing

@Suite struct SettingsTests {
    private func temporaryPath() -> String {
        NSTemporaryDirectory() + "ridebeacon-settings-\(UUID().uuidString)/ridebeacon/settings.json"
    }

    @Test func missingFileIsTheStandardSettings() throws {
        #expect(try Settings.load(from: temporaryPath()) == .standard)
    }

    @Test func savedSettingsReadBackAndArePrivate() throws {
        let path = temporaryPath()
        var settings = Settings.standard
        settings.voice = VoiceSettings(voice: "en-us", rate: 220, pitch: 40, volume: 150)
        settings.verbosity = .full
        settings.server = "http://127.0.0.1:8080"
        settings.token = "rbt_secret"
        try settings.save(to: path)
        #expect(try Settings.load(from: path) == settings)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test(arguments: [
        (#"{"rate": 900}"#, "rate must be 80…450 words per minute, not 900"),
        (#"{"volume": -1}"#, "volume must be 0…200 percent, not -1"),
        (#"{"pitch": 100}"#, "pitch must be 0…99, not 100"),
        (#"{"verbosity": "loud"}"#, "verbosity must be one of earcons, brief, full, not \"loud\""),
        (#"{"language": "xx"}"#, "language must be one of en, es, fr, not \"xx\""),
        (#"{"rate": "fast"}"#, "rate must be a whole number"),
        (#"{"rate": 1.5}"#, "rate must be a whole number"),
        (#"{"speed": 3}"#, "unknown setting \"speed\""),
        (#"{"server": "ftp://x"}"#, "server must be an http:// or https:// URL"),
        (#"[1]"#, "settings must be a JSON object"),
        (#"{"#, "not valid JSON"),
    ])
    func invalidValuesAreRejectedNamingTheField(json: String, expected: String) throws {
        #expect {
            try Settings.parse(Data(json.utf8), path: "s.json")
        } throws: { error in
            "\(error)".hasPrefix("s.json: ") && "\(error)".contains(expected)
        }
    }

    @Test func xdgConfigHomeIsHonoured() {
        #expect(Settings.defaultPath(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/u"]) == "/cfg/ridebeacon/settings.json")
        #expect(Settings.defaultPath(environment: ["HOME": "/home/u"]) == "/home/u/.config/ridebeacon/settings.json")
    }
}
