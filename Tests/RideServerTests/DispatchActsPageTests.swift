import Foundation
import HTTPTypes
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// The dispatcher page's acts over HTTP: assigning a waiting request to a free driver,
/// cancelling a request with a reason, and the flag on rides that need attention.
@Suite("Dispatcher page acts", .timeLimit(.minutes(2)))
struct DispatchActsPageTests {
    @Test(arguments: StoreKind.available)
    func assignAndCancelARequestFromThePage(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let busy = try await world.acceptedRide()
        let request = try await world.store.createRideRequest(
            NewRideRequest(passengerName: "Bea", pickup: "Harbour 2", dropoff: "Airport"), passengerID: world.otherPassenger.id, idempotency: nil)
        try await world.app().test(.router) { client in
            let page = try await client.form(.get, "/dispatch", cookie: world.dispatcher.token).text
            let csrf = String(try #require(page.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)
            // Only drivers without a ride are offered; Ben has one.
            #expect(page.contains(#"<option value="\#(world.otherDriver.id)">"#) && !page.contains(#"<option value="\#(world.driver.id)">"#))
            #expect(page.contains(#"<label for="driver-\#(request.id)">Driver for Bea</label>"#))

            let busyDriver = try await client.form(.post, "/dispatch/requests/\(request.id)/assign", "csrf=\(csrf)&driverId=\(world.driver.id)", cookie: world.dispatcher.token)
            #expect(busyDriver.status == .conflict && busyDriver.text.contains("Ben already has an active ride"))
            let noDriver = try await client.form(.post, "/dispatch/requests/\(request.id)/assign", "csrf=\(csrf)&driverId=nobody", cookie: world.dispatcher.token)
            #expect(noDriver.status == .badRequest)
            #expect(try await world.store.rideRequest(id: request.id)?.status == .open)

            let assigned = try await client.form(.post, "/dispatch/requests/\(request.id)/assign", "csrf=\(csrf)&driverId=\(world.otherDriver.id)", cookie: world.dispatcher.token)
            #expect(assigned.status == .seeOther)
            let rideID = try #require(try await world.store.rideRequest(id: request.id)?.rideID)
            #expect(try await world.store.ride(id: rideID)?.driverID == world.otherDriver.id)
            #expect(try await world.store.events(rideID: rideID, after: 0).last?.actorID == world.dispatcher.id)
            let notice = try await client.form(.get, try #require(assigned.headers[.location]), cookie: world.dispatcher.token).text
            #expect(notice.contains(#"<p class="notice" role="status">\#(world.otherDriver.account.displayName) now has the ride for Bea (code "#))

            // A waiting request: the same question first, the reason in its history.
            let next = try await world.store.createRideRequest(
                NewRideRequest(passengerName: "Cy", pickup: "Elm 5", dropoff: "Museum"), passengerID: world.otherPassenger.id, idempotency: nil)
            let question = try await client.form(.get, "/dispatch/requests/\(next.id)/cancel", cookie: world.dispatcher.token)
            #expect(question.status == .ok && question.text.contains("Cancel the request of Cy?"))
            let noReason = try await client.form(.post, "/dispatch/requests/\(next.id)/cancel", "csrf=\(csrf)", cookie: world.dispatcher.token)
            let stillOpen = try await world.store.rideRequest(id: next.id)?.status
            #expect(noReason.status == .badRequest && stillOpen == .open)
            let cancelled = try await client.form(.post, "/dispatch/requests/\(next.id)/cancel", "csrf=\(csrf)&reason=duplicate", cookie: world.dispatcher.token)
            let nowCancelled = try await world.store.rideRequest(id: next.id)?.status
            #expect(cancelled.status == .seeOther && nowCancelled == .cancelled)
            #expect(try await world.store.events(after: 0, limit: 100).last?.detail == "duplicate")
            _ = busy
        }
    }

    @Test func ridesAtThePickupOverFiveMinutesAreFlagged() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
        let clock = SteppedClock(Date())
        try await world.app(configure: { $0.now = clock.reading }).test(.router) { client in
            let fresh = try await client.form(.get, "/dispatch/board", cookie: world.dispatcher.token).text
            #expect(!fresh.contains("data-attention=") && fresh.contains("No ride is stuck."))
            clock.advance(6 * 60)
            let late = try await client.form(.get, "/dispatch/board", cookie: world.dispatcher.token).text
            #expect(late.contains(#"data-attention="Stuck: at the pickup for over 5 minutes" class="attention""#))
            #expect(late.contains(#"<p id="attention-summary" class="attention">1 ride is stuck.</p>"#))
            let script = try await client.form(.get, "/dispatch/assets/dispatch.js").text
            #expect(script.contains("tr[data-attention]") && script.contains("new AudioContext()"))
        }
    }
}
