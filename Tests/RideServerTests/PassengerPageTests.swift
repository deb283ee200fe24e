import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// The passenger page over HTTP: sign-in by code (each refusal its own words, none signs in),
/// requesting with GOV.UK-style errors that change nothing, following, cancelling only after
/// the confirmation, and the page's cookie on the ride's event stream only.
@Suite("Passenger page", .timeLimit(.minutes(2)))
struct PassengerPageTests {
    @Test(arguments: StoreKind.available)
    func signInByCodeThenRequestFollowAndCancel(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.live) { client in
            let anonymous = try await client.form(.get, "/")
            #expect(anonymous.status == .ok && anonymous.text.contains(#"<label for="code">Sign-in code</label>"#))

            let issued = try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin, json: "{}")
            let code = try #require(issued.string("code"))
            let short = try await client.form(.post, "/sign-in", "code=1234")
            #expect(short.status == .badRequest && short.text.contains(##"<a href="#code">Sign-in code must be eight digits"##))
            #expect(short.text.contains("<title>Error: ") && short.text.contains(#"aria-invalid="true""#) && short.headers[.setCookie] == nil)
            let unknown = try await client.form(.post, "/sign-in", "code=0000+0000")
            #expect(unknown.status == .unauthorized && unknown.text.contains("no such sign-in code") && unknown.headers[.setCookie] == nil)
            let crossSite = try await client.form(.post, "/sign-in", "code=\(code)", headers: ["Origin": "https://evil.example"])
            #expect(crossSite.status == .forbidden && crossSite.headers[.setCookie] == nil)

            let signedIn = try await client.form(.post, "/sign-in", "code=\(code.replacingOccurrences(of: " ", with: "+"))")
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/")
            let setCookie = try #require(signedIn.headers[.setCookie])
            #expect(setCookie.hasPrefix("rb_passenger=rb_") && setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            let cookie = String(setCookie.prefix { $0 != ";" })
            let reused = try await client.form(.post, "/sign-in", "code=\(code.replacingOccurrences(of: " ", with: "+"))")
            #expect(reused.status == .unauthorized && reused.text.contains("already used"))

            let home = try await client.form(.get, "/", cookie: cookie)
            #expect(home.text.contains("<h1>Request a ride</h1>") && home.text.contains("The driver will call out your name, Ana."))
            let csrf = String(try #require(home.text.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)

            // Both missing fields named, the typed notes kept, nothing created.
            let empty = try await client.form(.post, "/ride/request", "csrf=\(csrf)&pickup=&dropoff=+&notes=guide+dog", cookie: cookie)
            #expect(empty.status == .badRequest)
            #expect(empty.text.contains(##"<li><a href="#pickup">Enter where the driver should pick you up</a></li><li><a href="#dropoff">Enter where you are going</a></li>"##))
            #expect(empty.text.contains(">guide dog</textarea>"))
            #expect(try await world.store.rideRequests(passengerID: world.passenger.id).isEmpty)
            let forged = try await client.form(.post, "/ride/request", "csrf=forged&pickup=A&dropoff=B", cookie: cookie)
            #expect(forged.status == .forbidden)

            // A saved place's name stands for its address.
            _ = try await world.store.savePlace(SavedPlaceRecord(accountID: world.passenger.id, name: "home", address: "Main St 1", createdAt: Date()))
            let made = try await client.form(.post, "/ride/request", "csrf=\(csrf)&pickup=Home&dropoff=Central+Station&notes=", cookie: cookie)
            #expect(made.status == .seeOther && made.headers[.location] == "/")
            let request = try #require(try await world.store.rideRequests(passengerID: world.passenger.id).first)
            #expect(request.pickup == "Main St 1" && request.passengerName == "Ana" && request.accessibilityNotes == nil)
            let waiting = try await client.form(.get, "/", cookie: cookie).text
            let shortCode = try #require(request.shortCode)
            #expect(waiting.contains("Your ride \(shortCode) is waiting for a driver."))
            #expect(waiting.contains(#"role="status" aria-live="polite""#))
            // Without JavaScript the page reloads itself; with it, the script follows the ride.
            #expect(waiting.contains(#"<noscript><meta http-equiv="refresh" content="30"></noscript>"#))
            let script = try await client.form(.get, "/assets/passenger.js")
            #expect(script.status == .ok && script.text.contains("new EventSource(`/v1/rides/${encodeURIComponent(rideId)}/events?after=`"))

            let ride = try await world.store.accept(requestID: request.id, driverID: world.driver.id, rideKey: Data(repeating: 1, count: 32), idempotency: nil)
            let status = try await client.form(.get, "/ride/status", cookie: cookie)
            #expect(status.text.contains("Ben in a blue Prius accepted your ride \(shortCode).") && status.text.contains(#"data-ride-id="\#(ride.id)""#))
            #expect(!status.text.contains("<code>") && !status.text.contains("ridebeacon passenger"), "no command line on the page")
            // Issue 22: arrived, the page says what to do in one sentence; once the guide reports in, that it guides.
            _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
            let arrivedPage = try await client.form(.get, "/ride/status", cookie: cookie).text
            // Issue 37, point 2: nothing has asked Ben to come yet, so the page does not say so; it offers it.
            #expect(arrivedPage.contains("Your phone cannot guide you here: stay at the pickup.") && !arrivedPage.contains("is asked to come")
                    && !arrivedPage.contains("<code>") && !arrivedPage.contains("--radio"), "\(arrivedPage)")
            let started = try await client.call(.post, "/v1/rides/\(ride.id)/guide", as: world.passenger, json: #"{"report":"started"}"#)
            #expect(started.status == .created, "\(started.text)")
            let guidingPage = try await client.form(.get, "/ride/status", cookie: cookie).text
            #expect(guidingPage.contains("Your phone is guiding you to the car.") && !guidingPage.contains("cannot guide"), "\(guidingPage)")
            #expect(try await client.form(.get, "/ride/status").status == .unauthorized)

            // Cancelling: a question first; a post without the confirmation changes nothing.
            let question = try await client.form(.get, "/ride/cancel", cookie: cookie)
            #expect(question.status == .ok && question.text.contains("Yes, cancel ride \(shortCode)") && question.text.contains("No, keep my ride"))
            let unconfirmed = try await client.form(.post, "/ride/cancel", "csrf=\(csrf)", cookie: cookie)
            #expect(unconfirmed.status == .seeOther && unconfirmed.headers[.location] == "/ride/cancel")
            #expect(try await world.store.ride(id: ride.id)?.state == .arrived)
            let cancelled = try await client.form(.post, "/ride/cancel", "csrf=\(csrf)&confirm=yes", cookie: cookie)
            #expect(cancelled.status == .seeOther && cancelled.headers[.location] == "/?cancelled=1")
            #expect(try await world.store.ride(id: ride.id)?.state == .cancelled)
            let after = try await client.form(.get, "/?cancelled=1", cookie: cookie).text
            #expect(after.contains("Your ride was cancelled.") && after.contains("<h1>Request a ride</h1>"))
        }
    }

    @Test func thePagesCookieOpensOnlyTheRideStream() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        try await world.app().test(.live) { client in
            let other = try await client.call(.get, "/v1/rides", as: nil, headers: ["Cookie": "rb_passenger=\(world.passenger.token)"])
            #expect(other.status == .unauthorized)
            let driver = try await client.call(.get, "/v1/rides/\(ride.id)/events?after=999999", as: nil,
                                               headers: ["Cookie": "rb_passenger=\(world.driver.token)"])
            #expect(driver.status == .forbidden)
            let stranger = try await client.call(.get, "/v1/rides/\(ride.id)/events?after=999999", as: nil,
                                                 headers: ["Cookie": "rb_passenger=\(world.otherPassenger.token)"])
            #expect(stranger.status == .notFound)

            let port = try #require(client.port)
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/rides/\(ride.id)/events")
            request.headers.add(name: "Cookie", value: "rb_passenger=\(world.passenger.token)")
            let own = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(own.status == .ok && own.headers.first(name: "Content-Type")?.hasPrefix("text/event-stream") == true)
            var iterator = own.body.makeAsyncIterator()
            #expect(try await iterator.next().map { String(buffer: $0) }?.hasPrefix("retry:") == true)
        }
    }

    @Test func aCodeForAnotherRoleLeavesNoSession() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let issued = try await client.call(.post, "/v1/accounts/\(world.driver.id)/sign-in-codes", as: world.admin, json: "{}")
            let code = try #require(issued.string("code")).replacingOccurrences(of: " ", with: "")
            let refused = try await client.form(.post, "/sign-in", "code=\(code)")
            #expect(refused.status == .forbidden && refused.headers[.setCookie] == nil && refused.text.contains("this page is for passengers"))
            #expect(try await world.store.tokens(accountID: world.driver.id).filter { $0.revokedAt == nil }.count == 1)
        }
    }
}
