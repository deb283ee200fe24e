import Foundation
import RideBeaconTesting
import Testing

/// What the browser test needs: Debian's chromium and the repo's .venv with websocket-client
/// (`make test` installs both). Without them the test is skipped, unless
/// RIDEBEACON_REQUIRE_BROWSER is set (as `make test` and so CI do): then it runs and fails.
enum Browser {
    static let chromium = ProcessInfo.processInfo.environment["RIDEBEACON_CHROMIUM"] ?? "/usr/bin/chromium"
    static let python = Repository.root.appendingPathComponent(".venv/bin/python3").path
    static let required = ProcessInfo.processInfo.environment["RIDEBEACON_REQUIRE_BROWSER"].map { !$0.isEmpty } ?? false
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: chromium) && FileManager.default.isExecutableFile(atPath: python)
    }
    static let outputDirectory = Repository.root.appendingPathComponent(".build/test-output")
}

@Suite("Dispatcher page in headless Chromium", .tags(.chromium, .process), .timeLimit(.minutes(3)))
struct DispatchPageBrowserTests {
    @Test(.enabled(if: Browser.available || Browser.required, "needs /usr/bin/chromium and .venv (make test installs both)"))
    func pageFollowsTheRideLiveAndWorksWithoutJavaScript() async throws {
        #expect(Browser.available, "chromium or .venv/bin/python3 missing although RIDEBEACON_REQUIRE_BROWSER is set")
        let server = try await LiveServer()
        defer { server.stop() }
        let tokens = [
            "dispatcher": try await server.createAccount(role: "dispatcher", name: "Dot"),
            "passenger": try await server.createAccount(role: "passenger", name: "Ana"),
            // A waiting request beside Ana's active ride: one ride at a time, so another passenger's.
            "otherPassenger": try await server.createAccount(role: "passenger", name: "Bea"),
            "driver": try await server.createAccount(role: "driver", name: "Ben", vehicle: "blue Toyota Prius"),
        ]
        let config: [String: Any] = [
            "base": server.baseURL, "chromium": Browser.chromium, "out": Browser.outputDirectory.path,
            "ridebeacon": try #require(Repository.ridebeaconBinary).path, "database": server.database, "tokens": tokens,
        ]
        let (status, stdout, stderr) = try await runPeer(input: try JSONSerialization.data(withJSONObject: config))
        try #require(status == 0, "dispatch_page.py failed:\n\(stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])

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

    private func runPeer(input: Data) async throws -> (Int32, String, String) {
        try await PythonPeer.run("Tests/EndToEndTests/dispatch_page.py", input: input)
    }
}
