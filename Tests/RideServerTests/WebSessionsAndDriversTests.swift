import Foundation
import HTTPTypes
import HummingbirdTesting
import RideBeaconTesting
@testable import RideServer
import RideStore
import Testing

/// Issue 25: a sign-in code works on every page, a page's sign-out ends the token it used,
/// signing in again does not pile up tokens, tokens carry a device name, and dispatchers see
/// drivers by name (`GET /v1/drivers`, the page's list of free drivers).
@Suite("Sign-in everywhere, device names, drivers by name", .timeLimit(.minutes(2)))
struct WebSessionsAndDriversTests {
    static let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

    func code(for member: Member, _ client: some TestClientProtocol, world: World) async throws -> String {
        let issued = try await client.call(.post, "/v1/accounts/\(member.id)/sign-in-codes", as: world.admin, json: "{}")
        return try #require(issued.string("code"))
    }

    /// The `rb_…` value of a Set-Cookie header.
    func cookieValue(_ response: TestResponse, _ name: String) throws -> String {
        let header = try #require(response.headers[.setCookie])
        let pair = try #require(header.split(separator: ";").first.map(String.init))
        #expect(pair.hasPrefix("\(name)="))
        return String(pair.dropFirst(name.count + 1))
    }

    @Test(arguments: StoreKind.available)
    func theDispatcherPageTakesACodeAndItsSignOutEndsTheToken(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            // Bad input: one sentence each, 400, nothing signed in.
            let empty = try await client.form(.post, "/dispatch/login", "token=+")
            #expect(empty.status == .badRequest && empty.text.contains("Enter your sign-in code or your dispatcher token."))
            let neither = try await client.form(.post, "/dispatch/login", "token=12")
            #expect(neither.status == .badRequest && neither.text.contains("That is neither a sign-in code (eight digits, like 4821 0937) nor a RideBeacon token"))
            #expect(!neither.text.contains("tokens start with rb_"), "the old refusal of codes is gone")
            let unknown = try await client.form(.post, "/dispatch/login", "token=0000+0001")
            #expect(unknown.status == .unauthorized && unknown.headers[.setCookie] == nil)

            // Another role's code is refused and stays unspent.
            let ana = try await code(for: world.passenger, client, world: world)
            let notMine = try await client.form(.post, "/dispatch/login", "token=\(ana.replacingOccurrences(of: " ", with: "+"))")
            #expect(notMine.status == .forbidden && notMine.text.contains("That code belongs to a passenger account and was not used here"))
            #expect(try await client.form(.post, "/sign-in", "code=\(ana.replacingOccurrences(of: " ", with: "+"))").status == .seeOther,
                    "the passenger page still takes it")

            let before = try await world.store.tokens(accountID: world.dispatcher.id).count
            let dot = try await code(for: world.dispatcher, client, world: world)
            let signedIn = try await client.form(.post, "/dispatch/login", "token=\(dot.replacingOccurrences(of: " ", with: "+"))",
                                                 headers: ["User-Agent": Self.firefox])
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/dispatch")
            let session = try cookieValue(signedIn, "rb_dispatch")
            #expect(session.hasPrefix("rb_") && session != world.dispatcher.token)
            let page = try await client.form(.get, "/dispatch", cookie: session)
            #expect(page.status == .ok && page.text.contains("Free drivers: 2"))
            let tokens = try await world.store.tokens(accountID: world.dispatcher.id)
            #expect(tokens.count == before + 1 && tokens.first?.deviceName == "Firefox on Linux")

            // Signing out revokes that token: the old cookie is sent back to sign in.
            let csrf = try #require(page.text.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) })
            let out = try await client.form(.post, "/dispatch/logout", "csrf=\(csrf)", cookie: session)
            #expect(out.status == .seeOther && out.headers[.setCookie]?.contains("Max-Age=0") == true)
            let after = try await client.form(.get, "/dispatch", cookie: session)
            #expect(after.status == .seeOther && after.headers[.location] == "/dispatch/login")
            #expect(try await world.store.tokens(accountID: world.dispatcher.id).first?.revokedAt != nil)
            #expect(try await client.call(.get, "/v1/rides", as: world.dispatcher).status == .ok, "the dispatcher's other token still works")
        }
    }

    @Test(arguments: StoreKind.available)
    func signingInAgainOnAPageEndsThePreviousToken(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let first = try await client.form(.post, "/sign-in", "code=\(try await code(for: world.passenger, client, world: world).replacingOccurrences(of: " ", with: "+"))")
            let firstToken = try cookieValue(first, "rb_passenger")
            let second = try await client.form(.post, "/sign-in", "code=\(try await code(for: world.passenger, client, world: world).replacingOccurrences(of: " ", with: "+"))",
                                               cookie: "rb_passenger=\(firstToken)")
            let secondToken = try cookieValue(second, "rb_passenger")
            #expect(firstToken != secondToken)
            let working = try await world.store.tokens(accountID: world.passenger.id).filter { $0.revokedAt == nil }
            #expect(working.count == 2, "the world's own token and the newest page sign-in only: \(working.map(\.id))")
            #expect(working.contains { $0.deviceName == "a web browser" }, "no User-Agent: named plainly")
            let stale = try await client.form(.get, "/", cookie: "rb_passenger=\(firstToken)")
            #expect(stale.status == .ok && stale.text.contains(#"<label for="code">"#), "the first cookie signs in no more")
        }
    }

    @Test(arguments: StoreKind.available)
    func aSignInNamesItsDeviceAndTheListSaysIt(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let code = try await code(for: world.passenger, client, world: world)
            let tooLong = try await client.call(.post, "/v1/sign-in", as: nil,
                                                json: #"{"code":"\#(code)","deviceName":"\#(String(repeating: "x", count: 101))"}"#)
            #expect(tooLong.status == .badRequest && tooLong.errorField == "deviceName")
            let control = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(code)","deviceName":"a\u0007b"}"#)
            #expect(control.status == .badRequest && control.errorField == "deviceName")
            let signedIn = try await client.call(.post, "/v1/sign-in", as: nil, json: #"{"code":"\#(code)","deviceName":"Ana's phone"}"#)
            #expect(signedIn.status == .created, "refusals spent nothing: \(signedIn.text)")
            let member = Member(account: world.passenger.account, token: try #require(signedIn.string("token")))
            let listed = try #require(try await client.call(.get, "/v1/tokens", as: member).json["tokens"] as? [[String: Any]])
            let mine = try #require(listed.first { $0["current"] as? Bool == true })
            #expect(mine["deviceName"] as? String == "Ana's phone")
            #expect(listed.filter { $0["deviceName"] == nil }.count == 1, "the token made without a name has none")
        }
    }

    @Test(arguments: StoreKind.available)
    func dispatchersListDriversByNameCarAndWhetherFree(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            #expect(try await client.call(.get, "/v1/drivers", as: world.passenger).status == .forbidden)
            let bad = try await client.call(.get, "/v1/drivers?free=maybe", as: world.dispatcher)
            #expect(bad.status == .badRequest && bad.errorMessage.contains("must be true or false"))
            let all = try #require(try await client.call(.get, "/v1/drivers", as: world.dispatcher).json["drivers"] as? [[String: Any]])
            #expect(all.map { $0["name"] as? String } == ["Ben", "Cy"], "by name")
            #expect(all[0]["free"] as? Bool == false && all[0]["rideCode"] as? String == ride.shortCode && all[0]["vehicle"] as? String == "blue Prius")
            #expect(all[1]["free"] as? Bool == true && all[1]["rideCode"] == nil)
            let free = try #require(try await client.call(.get, "/v1/drivers?free=true", as: world.admin).json["drivers"] as? [[String: Any]])
            #expect(free.map { $0["name"] as? String } == ["Cy"])

            let page = try await client.form(.get, "/dispatch", cookie: world.dispatcher.token)
            #expect(page.text.contains("Free drivers: 1") && page.text.contains(#"<li data-driver-id="\#(world.otherDriver.id)">Cy (red Golf)</li>"#))
        }
    }

    /// Issue 37 (9): with the passenger on board (confirmed, not completed) the driver is not
    /// free: the roster says so and neither the API nor the page can assign him another request.
    @Test(arguments: StoreKind.available)
    func aDriverWithAPassengerOnBoardIsNotFreeAndCannotBeAssigned(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
        try await world.confirmAsOperator(rideID: ride.id)
        let waiting = try await world.store.createRideRequest(
            NewRideRequest(passengerName: "Bo", pickup: "Elm St 2", dropoff: "Airport"), passengerID: world.otherPassenger.id, idempotency: nil)
        try await world.app().test(.router) { client in
            let all = try #require(try await client.call(.get, "/v1/drivers", as: world.dispatcher).json["drivers"] as? [[String: Any]])
            let ben = try #require(all.first { $0["name"] as? String == "Ben" })
            #expect(ben["free"] as? Bool == false && ben["rideCode"] as? String == ride.shortCode, "on board is busy: \(ben)")
            let assigned = try await client.call(.post, "/v1/ride-requests/\(waiting.id)/assign", as: world.dispatcher,
                                                 json: #"{"driverId":"\#(world.driver.id)"}"#)
            #expect(assigned.status == .conflict && assigned.errorCode == "driver_has_active_ride", "\(assigned.text)")
            #expect(assigned.errorMessage.hasPrefix("Ben already has ride \(ride.shortCode ?? "?")"), "names the driver, not \"you\": \(assigned.errorMessage)")
            let page = try await client.form(.get, "/dispatch", cookie: world.dispatcher.token)
            #expect(!page.text.contains(#"<li data-driver-id="\#(world.driver.id)">"#), "the page does not list him among the free")
        }
        #expect(try await world.store.rideRequest(id: waiting.id)?.status == .open, "the refusal changed nothing")
    }

    @Test func aBrowserIsNamedByFamilyAndSystem() {
        #expect(WebDevice.name(userAgent: Self.firefox) == "Firefox on Linux")
        #expect(WebDevice.name(userAgent: "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36") == "Chrome on Android")
        #expect(WebDevice.name(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1") == "Safari on iPhone")
        #expect(WebDevice.name(userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 Edg/124.0") == "Edge on Windows")
        #expect(WebDevice.name(userAgent: "curl/8.5.0") == "a web browser")
        #expect(WebDevice.name(userAgent: nil) == "a web browser")
    }
}
