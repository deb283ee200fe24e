import Foundation
import RideBeaconTesting
import Testing

@Suite("Dispatcher page in headless Chromium", .tags(.chromium, .process), .timeLimit(.minutes(3)))
struct DispatchPageBrowserTests {
    @Test(.enabled(if: Browser.available || Browser.required, "needs /usr/bin/chromium and .venv (make test installs both)"))
    func pageFollowsTheRideLiveAndWorksWithoutJavaScript() async throws {
        #expect(Browser.available, "chromium or .venv/bin/python3 missing although RIDEBEACON_REQUIRE_BROWSER is set")
        let report = try await Browser.check("dispatch_page.py", accounts: [
            "dispatcher": BrowserAccount(role: "dispatcher", name: "Dot"),
            "passenger": BrowserAccount(role: "passenger", name: "Ana"),
            // A waiting request beside Ana's active ride: one ride at a time, so another passenger's.
            "otherPassenger": BrowserAccount(role: "passenger", name: "Bea"),
            "driver": BrowserAccount(role: "driver", name: "Ben", vehicle: "blue Toyota Prius"),
        ]) { server in
            ["ridebeacon": try #require(Repository.ridebeaconBinary).path, "database": server.database]
        }

        #expect(report["unsignedLandsOn"] as? String == "/dispatch/login")
        let steps = try #require(report["steps"] as? [[String: Any]])
        // Each change reached the open page through the event stream: same document, no reload.
        #expect(steps.map { $0["cell"] as? String } == ["requested", "accepted", "arrived", "confirmed", nil])
        #expect(steps.map { $0["announced"] as? String } == ["requested", "accepted", "arrived", "confirmed", "completed"].map { "Ride for Ana: \($0)" })
        #expect(steps.allSatisfy { $0["sameDocument"] as? Bool == true })
        #expect(report["rowCells"] as? [String] == ["accepted", "Ana", "Ben", "blue Toyota Prius", "0"])

        let cancel = try #require(report["cancel"] as? [String: Any])
        #expect(cancel["notice"] as? String == "The ride for Ana is cancelled.")
        #expect(cancel["rowGone"] as? Bool == true && cancel["apiState"] as? String == "cancelled")

        let zoom = try #require(report["zoom200"] as? [String: Int])
        // The stacked rows make the page taller, so a vertical scrollbar may take part of the 640 px.
        #expect(zoom["innerWidth"] == 640 && (zoom["scrollWidth"] ?? .max) <= (zoom["clientWidth"] ?? 0), "horizontal scroll at 200 %: \(zoom)")

        let noScript = try #require(report["noScript"] as? [String: Any])
        #expect(noScript["hasRidesTable"] as? Bool == true && noScript["rideRows"] as? Int == 1)
        #expect(noScript["liveScriptRan"] as? Bool == false && noScript["metaRefresh"] as? Bool == true)

        for key in ["screenshot", "zoomScreenshot"] {
            let path = try #require(report[key] as? String)
            let png = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 5_000, "\(path) is not a real screenshot")
        }
    }
}
