import Foundation
import GuideAudio
import RideBeaconTesting
import SessionDoubles
import Testing

/// `passenger guide --voice-commands` and `--haptics` as a passenger runs them (issue 26).
@Suite("passenger guide: voice commands and haptics", .tags(.process), .timeLimit(.minutes(3)))
struct HandsFreeCLITests {
    /// "Where is my car", spoken into the guide's voice input, is answered like the d key (no
    /// signal yet: "Your driver's signal is not heard."); without feedbackd on the session bus the
    /// guide says once, plainly, that vibration is off, and goes on.
    @Test func whereIsTheCarIsAnsweredAndAMissingFeedbackdIsSaidOnce() async throws {
        let service = try await RideServiceFixture()
        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await service.run(["driver", "accept", requestID], as: service.driverToken)
        let input = try SpokenFixture.wav("where-is-my-car", lead: 5, tail: 2)
        defer { try? FileManager.default.removeItem(atPath: input) }
        var environment = service.environment(token: service.passengerToken)
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/ridebeacon-test-bus"
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/ridebeacon-test-session-bus"
        let guide = try BackgroundProcess(["passenger", "guide", "--radio", "sim", "--audio-out", "none", "--haptics", "on",
                                           "--voice-commands", "--voice-input", input], environment: environment)
        #expect(await guide.wait { _, err in err.contains("heard \"where is my car\"") }, "\(guide.stdout)\n\(guide.stderr)")
        #expect(await guide.wait { out, _ in out.contains("Your driver's signal is not heard.") }, "\(guide.stdout)\n\(guide.stderr)")
        let missing = "Vibration is off: feedbackd is not running on this device. Guiding goes on with sound."
        #expect(guide.stderr.components(separatedBy: missing).count == 2, "said once: \(guide.stderr)")
        #expect(guide.isRunning)
        guide.stop()
    }

    /// Issue 35: the traffic side the guide judges the car's kerb side by is a setting a person
    /// can change from the command line; a wrong value is refused by name and nothing is saved.
    @Test func theTrafficSideIsASetting() async throws {
        let config = try CLI.temporaryDirectory().path
        let environment = ["XDG_CONFIG_HOME": config, "HOME": config]
        let wrong = try await CLI.run(["settings", "set", "--traffic", "middle"], environment: environment)
        #expect(wrong.status != 0 && wrong.stderr.contains("traffic must be one of right, left"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: config + "/ridebeacon/settings.json"), "nothing saved")
        #expect(try await CLI.run(["settings", "set", "--traffic", "left"], environment: environment).status == 0)
        let shown = try await CLI.run(["settings", "show"], environment: environment)
        #expect(shown.stdout.contains("traffic: keeps to the left"), "\(shown.stdout)")
    }

    @Test func aWrongHapticsValueIsRefusedByName() async throws {
        let config = try CLI.temporaryDirectory().path
        let result = try await CLI.run(["settings", "set", "--haptics", "loud"], environment: ["XDG_CONFIG_HOME": config, "HOME": config])
        #expect(result.status != 0)
        #expect(result.stderr.contains(#"haptics must be one of on, off, only, not "loud""#), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: config + "/ridebeacon/settings.json"), "nothing saved")
        let saved = try await CLI.run(["settings", "set", "--haptics", "only"], environment: ["XDG_CONFIG_HOME": config, "HOME": config])
        #expect(saved.status == 0, "\(saved.stderr)")
        let shown = try await CLI.run(["settings", "show"], environment: ["XDG_CONFIG_HOME": config, "HOME": config])
        #expect(shown.stdout.contains("haptics: only"), "\(shown.stdout)")
    }
}
