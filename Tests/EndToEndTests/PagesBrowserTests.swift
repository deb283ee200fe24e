import Foundation
import RideBeaconTesting
import Testing

/// The passenger page and the dispatcher page's acts, driven by keyboard only in headless
/// Chromium (pages_check.py), with axe-core's WCAG 2.2 AA rules at 1280 px and 390 px.
@Suite("Passenger and dispatcher pages: keyboard journeys and axe", .tags(.chromium, .process), .timeLimit(.minutes(5)))
struct PagesBrowserTests {
    @Test(.enabled(if: Browser.available || Browser.required, "needs /usr/bin/chromium and .venv (make test installs both)"))
    func keyboardJourneysPassAxeAndFitAPhone() async throws {
        #expect(Browser.available, "chromium or .venv/bin/python3 missing although RIDEBEACON_REQUIRE_BROWSER is set")
        let report = try await Browser.check("pages_check.py", accounts: [
            "admin": BrowserAccount(role: "admin", name: "Root"),
            "dispatcher": BrowserAccount(role: "dispatcher", name: "Dot"),
            "passenger": BrowserAccount(role: "passenger", name: "Ana"),
            "passenger2": BrowserAccount(role: "passenger", name: "Cleo"),
            "driver": BrowserAccount(role: "driver", name: "Ben", vehicle: "blue Toyota Prius"),
        ])

        // axe: no WCAG 2.2 AA violation on any page at either width; nothing scrolls sideways on a phone.
        let audits = try #require(report["audits"] as? [String: [String: Any]])
        #expect(audits.count == 17, "pages audited: \(audits.keys.sorted())")
        for (page, audit) in audits {
            for width in ["1280", "zoom200", "390"] {
                let violations = try #require(audit[width] as? [Any], "\(page) at \(width) px was not audited")
                #expect(violations.isEmpty, "\(page) at \(width) px: \(violations)")
            }
            // Issue 25: no word or ride code broken mid-word at 1280 px or at 200 % zoom.
            for key in ["brokenWords1280", "brokenWordszoom200"] {
                #expect(audit[key] as? [String] == [], "\(page): words broken mid-word (\(key)): \(audit[key] ?? "not measured")")
            }
            let zoomed = try #require(audit["overflowZoom200"] as? [String: Int])
            #expect((zoomed["scrollWidth"] ?? .max) <= (zoomed["innerWidth"] ?? 0), "\(page) scrolls sideways at 200 %: \(zoomed)")
            let overflow = try #require(audit["overflow390"] as? [String: Int])
            #expect(overflow["innerWidth"] == 390 && (overflow["scrollWidth"] ?? .max) <= 390, "\(page) scrolls sideways at 390 px: \(overflow)")
        }

        let passenger = try #require(report["passenger"] as? [String: Any])
        let badCode = try #require(passenger["badCode"] as? [String: Any])
        #expect((badCode["title"] as? String)?.hasPrefix("Error:") == true)
        #expect(badCode["links"] as? [String] == ["Sign-in code must be eight digits, like 4821 0937"] && badCode["invalid"] as? [String] == ["code"])
        let empty = try #require(passenger["emptyRequest"] as? [String: Any])
        #expect(empty["links"] as? [String] == ["Enter where the driver should pick you up", "Enter where you are going"])
        #expect(empty["invalid"] as? [String] == ["pickup", "dropoff"])
        #expect(passenger["requestsAfterEmpty"] as? Int == 0, "a form with errors created a request")
        // After a form error the error summary has the focus (read first).
        #expect(passenger["focusAfterRequestError"] as? String == "error-summary")
        // Saved places on the page: added, refused again (focus on the summary), renamed, removed.
        #expect((passenger["placeSaved"] as? String)?.contains("Saved home.") == true)
        let twice = try #require(passenger["placeTwice"] as? [String: Any])
        #expect(twice["links"] as? [String] == ["You already have a place called home: rename or remove it first"] && twice["invalid"] as? [String] == ["place-name"])
        #expect(passenger["focusAfterPlaceError"] as? String == "error-summary")
        #expect((passenger["placeRenamed"] as? String)?.contains("Renamed home to flat.") == true)
        #expect((passenger["placeRemoved"] as? String)?.contains("Removed flat.") == true)
        #expect((passenger["placesLeft"] as? [Any])?.isEmpty == true)
        #expect(passenger["spanish"] as? String == "Pedir un viaje | Recogida", "\(passenger["spanish"] ?? "")")
        #expect((passenger["shortCode"] as? String)?.count == 4)
        let accepted = try #require(passenger["accepted"] as? String)
        #expect(accepted.hasPrefix("Ben in a blue Toyota Prius accepted your ride") && accepted.contains("in 7 minutes"), "\(accepted)")
        #expect(passenger["liveRegion"] as? [String: String] == ["role": "status", "live": "polite"])
        #expect(passenger["sameDocument"] as? Bool == true, "the page reloaded instead of following the stream")
        // Issue 22: the arrival says what to do in a sentence, with no command anywhere.
        let arrived = try #require(passenger["arrivalStatus"] as? String)
        #expect((passenger["arrived"] as? String)?.contains("Your phone cannot guide you here: stay at the pickup.") == true,
                "\(passenger["arrived"] ?? "")")
        // Issue 37, point 2: what she can do at the kerb, each answered as it happens; "Ben is asked
        // to come" no longer said before anyone asked him.
        #expect(passenger["kerbControls"] as? [String] == ["Ask Ben to come to you", "Ask Ben for a sound", "Hear the ride word",
                                                           "Message Ben", "Send"], "\(passenger["kerbControls"] ?? "")")
        #expect((passenger["arrived"] as? String)?.contains("asked to come") == false)
        let asked = try #require(passenger["comeAsked"] as? String)
        #expect(asked.hasPrefix("Asking Ben to come to you.") && !asked.contains("Ben's phone"), "\(asked)")
        #expect((passenger["comeReceived"] as? String)?.hasPrefix("Ben's phone has your request.") == true, "\(passenger["comeReceived"] ?? "")")
        #expect((passenger["comeAnswered"] as? String)?.hasPrefix("Ben is coming to you. Stay where you are.") == true,
                "\(passenger["comeAnswered"] ?? "")")
        #expect(passenger["sameDocumentKerb"] as? Bool == true, "the page reloaded at the kerb")
        #expect(passenger["arrivalCode"] as? Int == 0 && !arrived.contains("ridebeacon") && !arrived.contains("--radio"), "\(arrived)")
        let guiding = try #require(passenger["guidingStatus"] as? String)
        #expect((passenger["guiding"] as? String)?.contains("Your phone is guiding you to the car.") == true, "\(passenger["guiding"] ?? "")")
        #expect(!guiding.contains("ridebeacon") && !guiding.contains("cannot guide"), "\(guiding)")
        #expect(passenger["sameDocumentArrived"] as? Bool == true, "the page reloaded at the arrival")
        #expect(passenger["stateBeforeConfirm"] as? String == "arrived", "the first Enter on Cancel already cancelled")
        #expect(passenger["cancelNotice"] as? String == "Your ride was cancelled.")
        #expect(passenger["stateAfterConfirm"] as? String == "cancelled")

        let dispatcher = try #require(report["dispatcher"] as? [String: Any])
        let requestCells = try #require(dispatcher["requestCells"] as? [String])
        #expect(requestCells.first?.contains("Cleo") == true && requestCells.last?.count ?? 0 >= 4, "names and codes, not ids: \(requestCells)")
        let cancel = try #require(dispatcher["cancelReachable390"] as? [String: Double])
        #expect((cancel["left"] ?? -1) >= 0 && (cancel["right"] ?? .infinity) <= (cancel["innerWidth"] ?? 0), "Cancel off-screen at 390 px: \(cancel)")
        #expect((dispatcher["assignNotice"] as? String)?.hasPrefix("Ben now has the ride for Cleo") == true)
        let assigned = try #require(dispatcher["assignedRide"] as? [String: Any])
        #expect(assigned["state"] as? String == "accepted" && (assigned["driver"] as? [String: Any])?["name"] as? String == "Ben")
        let rideCells = try #require(dispatcher["rideCells"] as? [String])
        #expect(rideCells.contains { $0.contains("Platform 4") } && rideCells.contains { $0.contains("guide dog") }, "pickup and notes: \(rideCells)")
        let overflow = try #require(dispatcher["overflowWithRide390"] as? [String: Int])
        #expect((overflow["scrollWidth"] ?? .max) <= 390, "the board scrolls sideways at 390 px: \(overflow)")
        #expect(dispatcher["stateOnConfirmationPage"] as? String == "accepted")
        // The stuck count above the tables in plain words, the CLI's word; Cancel looks destructive.
        let attention = try #require(dispatcher["attention"] as? [String: Any])
        #expect(attention["text"] as? String == "No ride is stuck." && attention["beforeRides"] as? Bool == true
                && attention["beforeChanges"] as? Bool == true, "\(attention)")
        #expect(dispatcher["cancelButton"] as? [String: String] == ["background": "rgb(165, 29, 45)", "color": "rgb(255, 255, 255)"])
        #expect(dispatcher["focusAfterMissingReason"] as? String == "error-summary")
        let missing = try #require(dispatcher["missingReason"] as? [String: Any])
        #expect(missing["links"] as? [String] == ["Enter why you are cancelling; it is kept in the history"] && missing["invalid"] as? [String] == ["reason"])
        #expect(dispatcher["stateAfterMissingReason"] as? String == "accepted", "a cancellation without a reason changed the ride")
        #expect(dispatcher["cancelNotice"] as? String == "The ride for Cleo is cancelled." && dispatcher["stateAfterCancel"] as? String == "cancelled")
        #expect(dispatcher["requestCancelNotice"] as? String == "The request of Cleo is cancelled.")
        #expect(dispatcher["requestStatusAfterCancel"] as? String == "cancelled")

        for path in try #require(report["screenshots"] as? [String]) {
            let png = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 5_000, "\(path) is not a real screenshot")
        }
    }
}
