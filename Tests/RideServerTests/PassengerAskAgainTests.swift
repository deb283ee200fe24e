import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Issue 25: a request a dispatcher cancelled is told on the passenger page with who and why,
/// and the request form comes back filled with the same ride (one button asks again); her own
/// cancellation brings no such offer. The API says who cancelled, on requests and rides.
@Suite("Passenger page: asking again after a cancellation", .timeLimit(.minutes(2)))
struct PassengerAskAgainTests {
    @Test(arguments: StoreKind.available)
    func aDispatchersCancellationIsToldAndTheSameRideOfferedAgain(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let cookie = try await Self.passengerCookie(world, client)

            let made = try await client.call(.post, "/v1/ride-requests", as: world.passenger,
                                             json: #"{"pickup":"Birch 9","dropoff":"Library","accessibilityNotes":"guide dog"}"#)
            let requestID = try #require(made.string("id"))
            let cancelled = try await client.call(.post, "/v1/ride-requests/\(requestID)/cancel", as: world.dispatcher, json: #"{"reason":"storm"}"#)
            #expect(cancelled.status == .ok, "\(cancelled.text)")
            #expect(cancelled.text.contains(#""cancellation":{"at":"#) && cancelled.text.contains(#""by":"dispatcher","reason":"storm""#), "\(cancelled.text)")
            let listed = try await client.call(.get, "/v1/ride-requests", as: world.passenger)
            #expect(listed.text.contains(#""by":"dispatcher","reason":"storm""#), "\(listed.text)")

            // Issue 37 (7): the live status the open page fetches says who and why at once, with
            // the way to the same ride again, where it said "You have no open ride." until a reload.
            let status = try await client.form(.get, "/ride/status", cookie: cookie).text
            #expect(status.contains(#"data-state="none""#) && status.contains("Your request was cancelled by a dispatcher: storm."), "\(status)")
            #expect(status.contains(#"<a href="/" id="ask-again">Request a ride</a>"#) && !status.contains("You have no open ride"), "\(status)")

            let page = try await client.form(.get, "/", cookie: cookie).text
            #expect(page.contains("Your request was cancelled by a dispatcher: storm. The form below is filled with the same ride"), "\(page)")
            #expect(page.contains(#"name="pickup" type="text" value="Birch 9""#) && page.contains(#"value="Library""#)
                    && page.contains(">guide dog</textarea>"), "\(page)")

            // One button: the filled form asks for the same ride again.
            let csrf = String(try #require(page.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)
            let again = try await client.form(.post, "/ride/request", "csrf=\(csrf)&pickup=Birch+9&dropoff=Library&notes=guide+dog", cookie: cookie)
            #expect(again.status == .seeOther)
            let requests = try await world.store.rideRequests(passengerID: world.passenger.id)
            #expect(requests.count == 2 && requests.last?.status == .open && requests.last?.pickup == "Birch 9")

            // Her own cancellation: no offer, an empty form.
            _ = try await client.call(.post, "/v1/ride-requests/\(try #require(requests.last?.id))/cancel", as: world.passenger, json: "{}")
            let own = try await client.form(.get, "/", cookie: cookie).text
            #expect(!own.contains("was cancelled by") && !own.contains(#"value="Birch 9""#), "\(own)")
            let ownStatus = try await client.form(.get, "/ride/status", cookie: cookie).text
            #expect(ownStatus.contains("You have no open ride") && !ownStatus.contains("ask-again"), "\(ownStatus)")
        }
        await world.store.close()
    }

    /// Issue 37: once a driver had accepted, the page said "Your request was cancelled" of her ride.
    @Test func aCancelledRideIsCalledARide() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            let cookie = try await Self.passengerCookie(world, client)
            let cancelled = try await client.call(.post, "/v1/rides/\(ride.id)/cancel", as: world.dispatcher, json: #"{"reason":"flat tyre"}"#)
            #expect(cancelled.status == .ok, "\(cancelled.text)")
            let page = try await client.form(.get, "/", cookie: cookie).text
            #expect(page.contains("Your ride was cancelled by a dispatcher: flat tyre.") && !page.contains("Your request was cancelled"), "\(page)")
        }
        await world.store.close()
    }

    /// Issue 37: after completion the page showed the request form and no word of the ride,
    /// and the live status the open page fetches said "You have no open ride"; both say the
    /// ride is complete.
    @Test func aCompletedRideIsSaidOnThePageAndLive() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            let cookie = try await Self.passengerCookie(world, client)
            for state in [RideState.arrived, .confirmed, .completed] {
                _ = try await world.store.transition(rideID: ride.id, to: state, by: world.driver.id, detail: nil, idempotency: nil)
            }
            let page = try await client.form(.get, "/", cookie: cookie).text
            #expect(page.contains("Your ride with Ben is complete.") && page.contains(#"id="request-ride""#), "\(page)")
            let status = try await client.form(.get, "/ride/status", cookie: cookie).text
            #expect(status.contains(#"data-state="none""#) && status.contains("Your ride with Ben is complete."), "\(status)")
            #expect(!status.contains("You have no open ride") && !status.contains(#"id="ask-again""#), "\(status)")
        }
        await world.store.close()
    }

    /// Ana signed in on the passenger page with a code an admin issued: her session cookie.
    static func passengerCookie(_ world: World, _ client: some TestClientProtocol) async throws -> String {
        let issued = try await client.call(.post, "/v1/accounts/\(world.passenger.id)/sign-in-codes", as: world.admin, json: "{}")
        let code = try #require(issued.string("code"))
        let signedIn = try await client.form(.post, "/sign-in", "code=\(code.replacingOccurrences(of: " ", with: "+"))")
        return String(try #require(signedIn.headers[.setCookie]).prefix { $0 != ";" })
    }
}
