import Foundation
import RideBeaconTesting
import Testing

/// `ridebeacon demo` end to end: the real server in process, the API over loopback HTTP, the
/// guided walk and the audio file.
@Suite(.tags(.process)) struct DemoCLITests {
    @Test(arguments: [3, 4, 13] as [UInt64])
    func demoEndsConfirmedWithItsSummary(seed: UInt64) async throws {
        let result = try await CLI.run(["demo", "--seed", String(seed), "--json", "--audio-out", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["confirmed"] as? Bool == true)
        #expect(summary["seed"] as? Int == Int(seed))
        // On the street: 25 m in a straight line at this walk's drawn pace (0.8-1.2 m/s).
        let straight = try #require(summary["straight_line_seconds"] as? Double)
        #expect(straight >= 25 / 1.2 - 0.01 && straight <= 25 / 0.8 + 0.01)
        let toConfirm = try #require(summary["seconds_to_confirm"] as? Double)
        let to1m = try #require(summary["seconds_to_1m"] as? Double)
        #expect(to1m < toConfirm)
        let cues = try #require(summary["cues"] as? [String: Int])
        #expect(cues["say:confirmed"] == 1 || cues["say:confirmed_by_word"] == 1, "\(cues)")
        #expect(summary["safety_events"] as? Int == 0)
        #expect(summary["wrong_direction_cues"] is Int)
        #expect(result.stdout.split(separator: "\n").count == 1, "--json prints only the summary")
    }

    /// `--positions off`: the walk as before issue 35, with no satellite line at all.
    @Test func positionsOffSaysNoPositions() async throws {
        let result = try await CLI.run(["demo", "--positions", "off", "--seed", "3", "--audio-out", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("positions:") && !result.stdout.contains("By satellite"), "\(result.stdout)")
        let bad = try await CLI.run(["demo", "--positions", "maybe"])
        #expect(bad.status != 0 && bad.stderr.contains("--positions must be on or off"))
    }

    /// Issue 37 (5): the last line before the summary says how the walk ended, and the exit
    /// status agrees with it (a silent driver's demo stopped at its cap with no word at all).
    @Test(arguments: ["silent", "helpful"])
    func theDemoSaysHowItEndedAndExitsAccordingly(driver: String) async throws {
        let result = try await CLI.run(["demo", "--driver", driver, "--seed", "2", "--audio-out", "none"])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let closing = try #require(lines.dropLast().last, "\(result.stdout.suffix(400))")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any])
        if summary["confirmed"] as? Bool == true {
            #expect(result.status == 0 && closing.hasPrefix("demo: ride confirmed by the "), "\(closing)")
        } else {
            #expect(result.status == 1 && closing.hasPrefix("demo: not confirmed: after 600 s"), "\(closing)")
            // Issue 37 (4): the guide's ladder ends with the call, and the closing line says so.
            #expect(result.stdout.contains("To find the car, call your dispatcher for help.") && closing.contains("told her to call"),
                    "\(closing)")
        }
    }

    @Test func transcriptShowsTheRideAndTheWavHoldsTheWalk() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wav = directory.appendingPathComponent("walk.wav").path
        let result = try await CLI.run(["demo", "--audio-out", wav])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("event stream says the driver arrived") })
        // The car with its plate, letter by letter (issue 25).
        #expect(lines.contains { $0.contains("\"Ride confirmed. Your driver is Ben, blue Toyota Prius, plate A B 1 2 C D E.\"") }, "\(result.stdout)")
        // The header names the ride by its code, not a UUID (issue 25).
        let header = lines.filter { $0.hasPrefix("passenger: requested") || $0.hasPrefix("driver: accepted") }
        #expect(header.count == 2 && header.allSatisfy { $0.range(of: #"[0-9A-F]{8}-[0-9A-F]{4}-"#, options: [.regularExpression, .caseInsensitive]) == nil },
                "\(header)")
        #expect(lines.contains { $0.contains("touch proof posted") })
        // Issue 35: both phones' satellite positions, the first pair through the real server
        // (her phone reads back exactly the car's fix the driver's device posted).
        let positions = try #require(lines.first { $0.contains("positions: Ana's phone ") && $0.contains("; the car's ") }, "\(result.stdout)")
        let carFix = try #require(positions.components(separatedBy: "; the car's ").last?.components(separatedBy: "; ").first)
        #expect(lines.contains { $0.hasSuffix("ride service: her phone reads the car's position back: " + carFix) }, "\(result.stdout)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any])
        #expect(summary["confirmed"] as? Bool == true)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int)
        #expect(size > 44 + 22_050 * 2 * 20, "at least 20 s of audio")
    }

    /// With the locator on the open field and a driver who only has the device's tick, the
    /// transcript shows each step: the request through the real server, the driver's
    /// instruction and ticks, and the passenger's phrase only once the tick played; without the
    /// locator aid, none of them.
    @Test func theLocatorAidShowsItsCuesInTheTranscript() async throws {
        let with = try await CLI.run(["demo", "--aids", "locator", "--world", "open", "--driver", "legacy", "--seed", "9", "--audio-out", "none"])
        let lines = with.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("passenger: asked the car to sound its locator: ticking") }, "\(with.stdout)")
        #expect(lines.contains { $0.contains("driver's device: Ana is looking for the car. Open the window: this device is ticking.") })
        #expect(lines.contains { $0.contains("driver: locator ticks on for 30 s") })
        #expect(lines.contains { $0.contains("driver: answered the sound request: device") })
        let summary = try #require(try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any])
        #expect((summary["locator_requests"] as? Int ?? 0) >= 1 && (summary["locator_ticks_played"] as? Int ?? 0) >= 1)

        let without = try await CLI.run(["demo", "--aids", "none", "--world", "open", "--driver", "legacy", "--seed", "9", "--audio-out", "none"])
        #expect(!without.stdout.contains("asked the car to sound") && !without.stdout.contains("ticking"))
    }

    /// On the street with a helpful driver, the transcript shows the driver's side of the
    /// meeting: what the driver's device says, the driver's answer or walk over.
    @Test func theDemoShowsTheDriversSideOfTheMeeting() async throws {
        let result = try await CLI.run(["demo", "--audio-out", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("street: the car stopped") })
        #expect(lines.contains { $0.contains("driver's device: ") })
        #expect(lines.contains { $0.contains("driver: I'm coming to you") || $0.contains("driver: answered the sound request") })
        let summary = try #require(try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any])
        #expect(summary["confirmed"] as? Bool == true)
    }

    @Test func sameSeedSameWalk() async throws {
        let a = try await CLI.run(["demo", "--seed", "11", "--json", "--audio-out", "none"])
        let b = try await CLI.run(["demo", "--seed", "11", "--json", "--audio-out", "none"])
        #expect(a.stdout == b.stdout)
    }

    @Test(arguments: [
        (["demo", "--start-distance", "0.5"], "--start-distance must be 2 to 100 metres"),
        (["demo", "--verbosity", "loud"], "--verbosity must be one of earcons, brief, full"),
        (["demo", "--audio-out", "demo.mp3"], "--audio-out must be FILE.wav"),
        (["demo", "--aids", "sonar"], "--aids must be one of none, turn, locator, all"),
    ])
    func badFlagsAreRefusedWithTheirRule(arguments: [String], message: String) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
