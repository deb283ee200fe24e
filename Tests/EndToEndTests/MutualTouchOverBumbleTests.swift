import Foundation
import RideBeaconTesting
import Testing

/// Issue 12's "done when": the mutual rule end to end on real parts — a real `ridebeacon
/// serve`, `ridebeacon driver arrive` and `ridebeacon passenger guide`, their radios two linked
/// Bumble virtual controllers over h4:tcp. Bumble reports every advertisement at -50 dBm, so
/// each side's `--touch-rssi` decides whether that device "feels" the touch: above -50 it
/// never does, which is the driver's phone not seeing the jump.
@Suite("Mutual touch over Bumble radios with the real server", .tags(.bumble, .process), .timeLimit(.minutes(4)))
struct MutualTouchOverBumbleTests {
    static let hold = "Hold the phones together."
    static let touch = "Touch detected. Press the Confirm button to confirm your ride."

    @Test(.enabled(if: BumbleControllers.shouldRun, "needs .venv with bumble (make test creates it)"))
    func onlyThePassengersDeviceFeelsItSoNoTouchUntilTheDriversDoesToo() async throws {
        let (server, api, passenger, driver, rideID) = try await GuideOverBumbleTests.acceptedRide()
        defer { server.stop() }
        let bumble = try BumbleControllers()
        defer { bumble.stop() }
        let guide = try Interactive(["passenger", "guide", rideID, "--radio", bumble.radioArgument(1), "--touch-rssi", "-55",
                                     "--audio-out", "none", "--server", server.baseURL], token: passenger)
        defer { guide.stop() }
        #expect(await guide.wait { $0.contains("Your driver is on the way.") }, "\(guide.stderr)")

        // The driver's device hears the passenger's beacon at -50 dBm, below its touch level.
        let numb = try Interactive(["driver", "arrive", rideID, "--radio", bumble.radioArgument(0), "--adv-type", "conn",
                                    "--touch-rssi", "-45", "--auto-confirm", "--server", server.baseURL], token: driver)
        defer { numb.stop() }
        #expect(await guide.wait { $0.contains(Self.hold) }, "the passenger's device feels it: \(guide.stdout)\n\(guide.stderr)")
        // The passenger presses Enter while holding: asked to hold on, no proof posted.
        let holdsBefore = guide.stdout.components(separatedBy: Self.hold).count
        guide.type("\n")
        #expect(await guide.wait { $0.components(separatedBy: Self.hold).count > holdsBefore }, "\(guide.stdout)")
        // Long enough for a driver that felt it to prove twice (auto-confirm re-proves every 5 s).
        try await Task.sleep(for: .seconds(11))
        #expect(!guide.stdout.contains(Self.touch), "one side's jump is no touch: \(guide.stdout)")
        #expect(!numb.stdout.contains("Touch detected"), "\(numb.stdout)")
        #expect(try await api.call(.GET, "/v1/rides/\(rideID)", token: passenger).json["state"] as? String == "arrived")
        numb.stop()

        // The same driver with a device that feels the touch: both sides feel it, the guide says
        // so, and Enter confirms the ride on the server.
        let arrive = try Interactive(["driver", "arrive", rideID, "--radio", bumble.radioArgument(0), "--adv-type", "conn",
                                      "--touch-rssi", "-55", "--auto-confirm", "--server", server.baseURL], token: driver)
        defer { arrive.stop() }
        #expect(await arrive.wait { $0.contains("Touch detected. Confirming.") }, "\(arrive.stdout)\n\(arrive.stderr)")
        #expect(await guide.wait { $0.contains(Self.touch) }, "\(guide.stdout)\n\(guide.stderr)\n\(arrive.stderr)")
        guide.type("\n")
        #expect(await guide.wait { $0.contains("Ride confirmed. Your driver is Ben, blue Toyota Prius.") },
                "\(guide.stdout)\n\(guide.stderr)\n\(arrive.stdout)\n\(arrive.stderr)")
        #expect(await guide.exitStatus() == 0)
        #expect(try await api.call(.GET, "/v1/rides/\(rideID)", token: passenger).json["state"] as? String == "confirmed")
    }
}
