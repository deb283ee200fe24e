import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// The dispatcher page over HTTP: sign-in, the rendered tables, who may see it, cancelling
/// with the session's CSRF token, and the session cookie on the event stream. (The page in a
/// real browser, live, is the end-to-end test's job.)
@Suite("Dispatcher page", .timeLimit(.minutes(2)))
struct DispatchPageTests {
    @Test(arguments: StoreKind.available)
    func signInSetsAStrictCookieAndThePageListsRidesAndRequests(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        _ = try await world.store.createRideRequest(
            NewRideRequest(passengerName: "Bea", pickup: "Harbour 2", dropoff: "Airport", accessibilityNotes: "wheelchair"),
            passengerID: world.otherPassenger.id, idempotency: nil)
        try await world.app().test(.live) { client in
            let login = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)")
            #expect(login.status == .seeOther && login.headers[.location] == "/dispatch")
            let cookie = try #require(login.headers[.setCookie])
            // The page's own session token, not the pasted one (issue 36: sign-out ends only the page's).
            #expect(cookie.hasPrefix("rb_dispatch=rb_") && !cookie.contains(world.dispatcher.token))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/") && !cookie.contains("Secure"))
            let overTLS = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)", headers: ["X-Forwarded-Proto": "https"])
            #expect(overTLS.headers[.setCookie]?.contains("Secure") == true)

            let page = try await client.form(.get, "/dispatch", cookie: world.dispatcher.token)
            #expect(page.status == .ok && page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            let html = page.text
            let row = try #require(html.firstMatch(of: /<tr data-ride-id="([^"]+)"[^>]*data-state="([a-z]+)"[^>]*>\s*<td class="state"[^>]*>([a-z]+)<\/td><th scope="row"[^>]*>([^<]*)<\/th><td[^>]*>([^<]*)<\/td><td[^>]*>([^<]*)<\/td><td class="minutes"[^>]*>(\d+)<\/td>/))
            #expect(row.1 == ride.id && row.2 == "accepted" && row.3 == "accepted")
            #expect(row.4 == "Ana" && row.5 == "Ben" && row.6 == "blue Prius" && row.7 == "0")
            #expect(html.contains(#"<td data-label="Pickup">Harbour 2</td><td data-label="Drop-off">Airport</td><td data-label="Notes">wheelchair</td>"#))
            // Active rides show their pickup and notes too, and short codes name rides and requests.
            #expect(html.contains(#"<td data-label="Pickup">Main St 1</td><td data-label="Drop-off">Station</td>"#))
            let code = try #require(try await world.store.ride(id: ride.id)?.shortCode)
            #expect(html.contains(#"<td class="code" data-label="Code">\#(code)</td>"#))
            #expect(html.contains("<caption>Active rides: 1 shown, oldest first</caption>"))
            #expect(html.contains(#"<th scope="col">Minutes in state</th>"#))
            #expect(html.contains(#"aria-live="polite""#))
            #expect(html.contains(#"<noscript><meta http-equiv="refresh" content="30"></noscript>"#))
            let lastEventID = try await world.store.lastEventID()
            #expect(html.contains(#"data-last-event-id="\#(lastEventID)""#))
            #expect(html.contains(#"aria-label="Cancel the ride for Ana, code \#(code)""#))

            // The script's fragment: the tables alone; no session, 401 (the script then signs in).
            let fragment = try await client.form(.get, "/dispatch/board", cookie: world.dispatcher.token)
            #expect(fragment.status == .ok && fragment.text.hasPrefix("<p id=\"attention-summary\"") && fragment.text.contains("<table id=\"rides\" class=\"stacking\">") && !fragment.text.contains("<html"))
            #expect(try await client.form(.get, "/dispatch/board").status == .unauthorized)
            let script = try await client.form(.get, "/dispatch/assets/dispatch.js")
            #expect(script.status == .ok && script.text.contains("new EventSource('/v1/events?after='"))
        }
    }

    @Test func onlyDispatchersGetIn() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let anonymous = try await client.form(.get, "/dispatch")
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/dispatch/login")
            let form = try await client.form(.get, "/dispatch/login")
            #expect(form.status == .ok && form.text.contains(#"<label for="token">Sign-in code or dispatcher token</label>"#))

            let passenger = try await client.form(.post, "/dispatch/login", "token=\(world.passenger.token)")
            #expect(passenger.status == .forbidden && passenger.headers[.setCookie] == nil)
            #expect(passenger.text.contains("Only dispatchers may use the dispatcher page"))
            let admin = try await client.form(.get, "/dispatch", cookie: world.admin.token)
            #expect(admin.status == .forbidden && admin.headers[.contentType]?.hasPrefix("text/html") == true)

            let wrong = try await client.form(.post, "/dispatch/login", "token=rb_\(String(repeating: "x", count: 43))")
            #expect(wrong.status == .unauthorized && wrong.text.contains(#"role="alert""#) && wrong.text.contains("unknown, revoked or expired"))

            // A session ends with its token: the page sends the browser back to sign in and drops the cookie.
            _ = try await world.store.revokeTokens(accountID: world.dispatcher.id)
            let revoked = try await client.form(.get, "/dispatch", cookie: world.dispatcher.token)
            #expect(revoked.status == .seeOther && revoked.headers[.location] == "/dispatch/login")
            #expect(revoked.headers[.setCookie]?.contains("Max-Age=0") == true)
        }
    }

    @Test(arguments: StoreKind.available)
    func cancellingNeedsTheSessionsFormToken(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.app().test(.live) { client in
            let page = try await client.form(.get, "/dispatch", cookie: world.dispatcher.token).text
            let csrf = String(try #require(page.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)

            let forged = try await client.form(.post, "/dispatch/rides/\(ride.id)/cancel", "csrf=forged", cookie: world.dispatcher.token)
            #expect(forged.status == .forbidden)
            let other = try await world.newDispatcherToken()
            let foreign = try await client.form(.post, "/dispatch/rides/\(ride.id)/cancel", "csrf=\(csrf)", cookie: other)
            #expect(foreign.status == .forbidden)
            #expect(try await world.store.ride(id: ride.id)?.state == .accepted)

            // Cancel is a question first: the confirmation page asks why, and no reason changes nothing.
            let question = try await client.form(.get, "/dispatch/rides/\(ride.id)/cancel", cookie: world.dispatcher.token)
            #expect(question.status == .ok && question.text.contains(#"<label for="reason">"#) && question.text.contains("Cancel the ride for Ana?"))
            let noReason = try await client.form(.post, "/dispatch/rides/\(ride.id)/cancel", "csrf=\(csrf)&reason=+", cookie: world.dispatcher.token)
            #expect(noReason.status == .badRequest && noReason.text.contains(##"<a href="#reason">Enter why you are cancelling"##))
            #expect(noReason.text.contains("<title>Error: "))
            #expect(try await world.store.ride(id: ride.id)?.state == .accepted)

            let cancelled = try await client.form(.post, "/dispatch/rides/\(ride.id)/cancel", "csrf=\(csrf)&reason=passenger+phoned", cookie: world.dispatcher.token)
            #expect(cancelled.status == .seeOther && cancelled.headers[.location] == "/dispatch?cancelled=\(ride.id)")
            #expect(try await world.store.ride(id: ride.id)?.state == .cancelled)
            let history = try await world.store.events(rideID: ride.id, after: 0)
            #expect(history.last?.actorID == world.dispatcher.id && history.last?.detail == "passenger phoned")
            let after = try await client.form(.get, "/dispatch?cancelled=\(ride.id)", cookie: world.dispatcher.token).text
            #expect(after.contains(#"<p class="notice" role="status">The ride for Ana is cancelled.</p>"#))
            #expect(!after.contains("data-ride-id=\"\(ride.id)\""))

            let again = try await client.form(.post, "/dispatch/rides/\(ride.id)/cancel", "csrf=\(csrf)&reason=again", cookie: world.dispatcher.token)
            #expect(again.status == .conflict && again.text.contains("already cancelled"))

            let logout = try await client.form(.post, "/dispatch/logout", "csrf=\(csrf)", cookie: world.dispatcher.token)
            #expect(logout.status == .seeOther && logout.headers[.setCookie]?.contains("Max-Age=0") == true)
        }
    }

    /// EventSource cannot send headers, so /v1/events takes the session cookie, from
    /// dispatchers only; no other API route does.
    @Test func eventStreamTakesTheDispatcherCookie() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let port = try #require(client.port)
            func stream(cookie: String) async throws -> (HTTPClientResponse, String?) {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/events")
                request.headers.add(name: "Cookie", value: "rb_dispatch=\(cookie)")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                var iterator = response.body.makeAsyncIterator()
                let first = try await iterator.next().map { String(buffer: $0) }
                return (response, first)
            }
            let (dispatcher, opening) = try await stream(cookie: world.dispatcher.token)
            #expect(dispatcher.status == .ok && dispatcher.headers.first(name: "Content-Type")?.hasPrefix("text/event-stream") == true)
            #expect(opening?.hasPrefix("retry:") == true)
            let (passenger, _) = try await stream(cookie: world.passenger.token)
            #expect(passenger.status == .forbidden)
            let rides = try await client.call(.get, "/v1/rides", as: nil, headers: ["Cookie": "rb_dispatch=\(world.dispatcher.token)"])
            #expect(rides.status == .unauthorized)
        }
    }
}

extension World {
    func newDispatcherToken() async throws -> String {
        let account = try await store.createAccount(NewAccount(role: .dispatcher, displayName: "Eve"))
        return try await Self.token(for: account, in: store).token
    }
}

extension TestClientProtocol {
    /// A browser-like request: form body, session cookie, no Authorization header. `cookie` is
    /// a dispatcher's token, or a whole `name=value` pair. A sign-in form's post without a
    /// `csrf` field gets the sign-in form token the way a browser does: its page is opened
    /// first (with the same extra headers) and the token goes in both the cookie and the body.
    func form(_ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil, cookie: String? = nil,
              headers extra: [String: String] = [:], signInToken: Bool = true) async throws -> TestResponse {
        var cookies = cookie.map { $0.contains("=") ? $0 : "rb_dispatch=\($0)" }
        var body = body
        if method == .post, let page = ["/sign-in": "/", "/dispatch/login": "/dispatch/login"][uri], let typed = body, signInToken, !typed.contains("csrf=") {
            let token = try await signInFormToken(page: page, headers: extra)
            cookies = [cookies, token.cookie].compactMap { $0 }.joined(separator: "; ")
            body = "csrf=\(token.value)&" + typed
        }
        var headers = HTTPFields()
        if let cookies { headers[.cookie] = cookies }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        for (name, value) in extra { if let name = HTTPField.Name(name) { headers[name] = value } }
        return try await executeRequest(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    /// The sign-in form token a browser gets on opening `page` signed out: its cookie
    /// (`name=value`) and the value the form carries.
    func signInFormToken(page: String, headers extra: [String: String] = [:]) async throws -> (cookie: String, value: String) {
        var headers = HTTPFields()
        for (name, value) in extra where name.lowercased() != "cookie" { if let name = HTTPField.Name(name) { headers[name] = value } }
        let response = try await executeRequest(uri: page, method: .get, headers: headers, body: nil)
        let setCookie = try #require(response.headers[values: .setCookie].first { $0.contains("rb_form=") }, "\(page) set no sign-in form cookie")
        let pair = String(setCookie.prefix { $0 != ";" })
        let value = String(pair.drop { $0 != "=" }.dropFirst())
        let html = String(buffer: response.body)
        #expect(html.contains("name=\"csrf\" value=\"\(value)\""), "\(page)'s form does not carry its cookie's token")
        return (pair, value)
    }
}
