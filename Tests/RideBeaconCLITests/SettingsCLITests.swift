import Foundation
import RideBeaconTesting
import Testing

@Suite("ridebeacon settings and help", .tags(.process))
struct SettingsCLITests {
    static func environment(_ home: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.path
        return environment
    }

    @Test func setSavesAndShowReadsBackWithoutTheToken() async throws {
        let home = try CLI.temporaryDirectory()
        let set = try await CLI.run(["settings", "set", "--voice", "en-us", "--rate", "220", "--pitch", "40", "--volume", "150",
                               "--verbosity", "full", "--server", "http://127.0.0.1:8080", "--token", "rb_secret"],
                              environment: Self.environment(home))
        #expect(set.status == 0, "\(set.stderr)")
        let file = home.appendingPathComponent("ridebeacon/settings.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "the file holds a token")
        let show = try await CLI.run(["settings", "show"], environment: Self.environment(home))
        #expect(show.status == 0)
        for line in ["voice: en-us", "rate: 220 words per minute", "pitch: 40", "volume: 150 percent", "verbosity: full",
                     "language: en", "server: http://127.0.0.1:8080", "token: set"] {
            #expect(show.stdout.contains(line + "\n"), "missing \(line)")
        }
        #expect(!show.stdout.contains("rb_secret"))
    }

    @Test(arguments: [
        (["--rate", "20"], "rate must be 80…450 words per minute, not 20"),
        (["--pitch", "100"], "pitch must be 0…99, not 100"),
        (["--volume=-1"], "volume must be 0…200 percent, not -1"),
        (["--verbosity", "loud"], "verbosity must be one of earcons, brief, full, not \"loud\""),
        (["--language", "xx"], "language must be one of en, es, fr, not \"xx\""),
        (["--server", "ftp://x"], "server must be an http:// or https:// URL, not \"ftp://x\""),
        (["--voice", "en us"], "voice must be an espeak-ng voice name"),
    ])
    func invalidValuesNameTheFieldAndRangeAndSaveNothing(arguments: [String], message: String) async throws {
        let home = try CLI.temporaryDirectory()
        _ = try await CLI.run(["settings", "set", "--rate", "300"], environment: Self.environment(home))
        let file = home.appendingPathComponent("ridebeacon/settings.json")
        let before = try Data(contentsOf: file)
        let result = try await CLI.run(["settings", "set", "--pitch", "10"] + arguments, environment: Self.environment(home))
        #expect(result.status != 0)
        #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("ridebeacon: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(try Data(contentsOf: file) == before, "a rejected change saves nothing, not even the valid --pitch")
    }

    @Test func aBrokenSettingsFileIsNamed() async throws {
        let home = try CLI.temporaryDirectory()
        let directory = home.appendingPathComponent("ridebeacon")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(#"{"rate": "fast"}"#.utf8).write(to: directory.appendingPathComponent("settings.json"))
        let result = try await CLI.run(["settings", "show"], environment: Self.environment(home))
        #expect(result.status != 0 && result.stderrLines.count == 1)
        #expect(result.stderr.contains("settings.json: rate must be a whole number"))
    }

    @Test(arguments: [
        [], ["passenger"], ["passenger", "request"], ["passenger", "cancel"], ["passenger", "guide"],
        ["driver"], ["driver", "requests"], ["driver", "accept"], ["driver", "arrive"], ["driver", "complete"],
        ["dispatcher"], ["dispatcher", "rides"], ["settings"], ["settings", "show"], ["settings", "set"],
    ])
    func helpIsPlainTextForScreenReaders(command: [String]) async throws {
        let result = try await CLI.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE:"))
        #expect(!result.stdout.unicodeScalars.contains { (0x2500...0x259F).contains($0.value) || $0.value == 0x1B },
                "box drawing or escape codes in the help of \(command)")
    }
}
