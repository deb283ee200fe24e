import Foundation
import RideBeaconTesting
import Testing

/// Issue 35: the passenger page reports her position through the browser's Geolocation API to
/// the server, in headless Chromium with an emulated position (passenger_position.py), and the
/// driver reads it back; when the browser may not use her location the page says so.
@Suite("Passenger page shares her position in headless Chromium", .tags(.chromium, .process), .timeLimit(.minutes(3)))
struct PassengerPositionBrowserTests {
    @Test(.enabled(if: Browser.available || Browser.required, "needs /usr/bin/chromium and .venv (make test installs both)"))
    func thePageSendsTheEmulatedPositionAndSaysWhenItMayNot() async throws {
        #expect(Browser.available, "chromium or .venv/bin/python3 missing although RIDEBEACON_REQUIRE_BROWSER is set")
        let report = try await Browser.check("passenger_position.py", accounts: [
            "admin": BrowserAccount(role: "admin", name: "Root"),
            "dispatcher": BrowserAccount(role: "dispatcher", name: "Dot"),
            "passenger": BrowserAccount(role: "passenger", name: "Ana"),
            "driver": BrowserAccount(role: "driver", name: "Ben", vehicle: "blue Toyota Prius"),
        ])

        // Refused: a visible status line says so, and nothing reached the server.
        #expect(report["refused"] as? String == "Your position is not shared: this browser may not use your location. Your driver still has your pickup.")
        #expect(report["lineRole"] as? String == "status" && report["lineVisible"] as? Bool == true)
        #expect(report["storedWhileRefused"] is NSNull, "\(report["storedWhileRefused"] ?? "missing")")

        // Allowed: the driver reads her emulated position exactly, then the moved one.
        #expect(report["shared"] as? String == "Your position is shared with your driver until you meet.")
        let first = try #require(report["driverSees"] as? [String: Any])
        #expect(first["latitude"] as? Double == 51.507351 && first["longitude"] as? Double == -0.127758 && first["accuracyMeters"] as? Double == 7,
                "\(first)")
        #expect(first["recordedAt"] is String)
        let moved = try #require(report["driverSeesMoved"] as? [String: Any])
        #expect(moved["latitude"] as? Double == 51.50761 && moved["longitude"] as? Double == -0.12801 && moved["accuracyMeters"] as? Double == 4)
        // The dispatcher: coarse only.
        let coarse = try #require((report["dispatcherSees"] as? [String: Any])?["passenger"] as? [String: Any])
        #expect(coarse["latitude"] as? Double == 51.51 && coarse["longitude"] as? Double == -0.13 && coarse["accuracyMeters"] as? Double == 1000)

        // Cancelled: deleted on the server, and the page no longer claims to share.
        #expect(report["afterCancel"] as? String == #""""#)
        #expect(report["driverSeesAfterCancel"] is NSNull)
    }
}
