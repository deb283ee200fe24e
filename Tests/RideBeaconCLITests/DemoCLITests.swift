import Foundation
import Testing

/// `ridebeacon demo` end to end: the real server in process, the API over loopback HTTP, the
/// guided walk and the audio file.
@Suite struct DemoCLITests {
    @Test(arguments: [3, 4, 13] as [UInt64])
    func demoEndsConfirmedWithItsSummary(seed: UInt64) throws {
        let result = try CLI.run(["demo", "--seed", String(seed), "--json", "--audio-out", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["confirmed"] as? Bool == true)
        #expect(summary["seed"] as? Int == Int(seed))
        #expect(summary["straight_line_seconds"] as? Double == 25)
        let toConfirm = try #require(summary["seconds_to_confirm"] as? Double)
        let to1m = try #require(summary["seconds_to_1m"] as? Double)
        #expect(to1m < toConfirm)
        let cues = try #require(summary["cues"] as? [String: Int])
        #expect(cues["say:confirmed"] == 1)
        #expect(summary["wrong_direction_cues"] is Int)
        #expect(result.stdout.split(separator: "\n").count == 1, "--json prints only the summary")
    }

    @Test func transcriptShowsTheRideAndTheWavHoldsTheWalk() throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wav = directory.appendingPathComponent("walk.wav").path
        let result = try CLI.run(["demo", "--audio-out", wav])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("event stream says the driver arrived") })
        #expect(lines.contains { $0.contains("\"Ride confirmed. Your driver is Ben, blue Toyota Prius.\"") })
        #expect(lines.contains { $0.contains("touch proof posted") })
        #expect(lines.last?.hasPrefix("{\"confirmed\":true") == true)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int)
        #expect(size > 44 + 22_050 * 2 * 20, "at least 20 s of audio")
    }

    @Test func sameSeedSameWalk() throws {
        let a = try CLI.run(["demo", "--seed", "11", "--json", "--audio-out", "none"])
        let b = try CLI.run(["demo", "--seed", "11", "--json", "--audio-out", "none"])
        #expect(a.stdout == b.stdout)
    }

    @Test(arguments: [
        (["demo", "--start-distance", "0.5"], "--start-distance must be 2 to 100 metres"),
        (["demo", "--verbosity", "loud"], "--verbosity must be one of earcons, brief, full"),
        (["demo", "--audio-out", "demo.mp3"], "--audio-out must be FILE.wav"),
        (["demo", "--aids", "compass"], "--aids must be one of none, turn, locator, all"),
    ])
    func badFlagsAreRefusedWithTheirRule(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
