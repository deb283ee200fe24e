import Foundation
import Hummingbird
import HummingbirdTesting
import RideBeaconTesting
@testable import RideServer
import RideStore
import Testing

/// Issue 37, point 2: the passenger asks her driver to come to her (`POST /v1/rides/{id}/come`)
/// and his device answers (`/come/answer`), on both stores; and the passenger page's controls
/// at the kerb post with its session cookie and CSRF token only.
@Suite("Come requests: the route and the page's controls")
struct ComeRequestRouteTests {
    @Test(arguments: StoreKind.available)
    func askAnswerAndLimits(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            let come = "/v1/rides/\(ride.id)/come", answer = "/v1/rides/\(ride.id)/come/answer"
            let early = try await client.call(.post, come, as: world.passenger, json: "{}")
            #expect(early.status == .conflict && early.errorCode == "wrong_state", "only while arrived: \(early.text)")
            _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
            #expect(try await client.call(.post, come, as: world.driver, json: "{}").status == .forbidden, "the driver does not ask himself")
            #expect(try await client.call(.post, come, as: world.otherPassenger, json: "{}").status == .notFound)
            let asked = try await client.call(.post, come, as: world.passenger, json: "{}")
            #expect(asked.status == .created && asked.string("kind") == "come_requested", "\(asked.text)")
            let again = try await client.call(.post, come, as: world.passenger, json: "{}")
            #expect(again.status == .tooManyRequests && again.headers[.retryAfter] != nil, "\(again.text)")
            let bad = try await client.call(.post, answer, as: world.driver, json: #"{"answer":"maybe"}"#)
            #expect(bad.status == .badRequest && bad.errorField == "answer", "\(bad.text)")
            #expect(try await client.call(.post, answer, as: world.passenger, json: #"{"answer":"coming"}"#).status == .forbidden)
            let received = try await client.call(.post, answer, as: world.driver, json: #"{"answer":"received"}"#)
            #expect(received.status == .created && received.string("kind") == "come_received", "\(received.text)")
            let twice = try await client.call(.post, answer, as: world.driver, json: #"{"answer":"received"}"#)
            #expect(twice.status == .conflict && twice.errorCode == "nothing_to_answer", "\(twice.text)")
            let coming = try await client.call(.post, answer, as: world.driver, json: #"{"answer":"coming"}"#)
            #expect(coming.status == .created && coming.string("kind") == "come_answered" && coming.string("detail") == "coming", "\(coming.text)")
            let kinds = try await world.store.events(rideID: ride.id, after: 0).map(\.kind)
            #expect(kinds.filter { [.comeRequested, .comeReceived, .comeAnswered].contains($0) } == [.comeRequested, .comeReceived, .comeAnswered],
                    "refusals wrote nothing: \(kinds)")
        }
        await world.store.close()
    }

    /// The page at arrival offers the kerb's controls with his name, and its script's posts
    /// count only with the session's CSRF token (else 403 `cross_site_form`, nothing recorded).
    @Test func thePageAsksWithItsCookieAndCSRFToken() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
        try await world.app().test(.router) { client in
            let cookie = ["Cookie": "rb_passenger=\(world.passenger.token)"]
            let home = try await client.call(.get, "/", as: nil, headers: cookie).text
            let csrf = String(try #require(home.firstMatch(of: /data-csrf="([^"]+)"/)).1)
            #expect(home.contains(#"<button type="button" id="ask-come">Ask Ben to come to you</button>"#), "\(home)")
            #expect(home.firstMatch(of: /data-received="Ben[^"]*s phone has your request\./) != nil, "said only on its event: \(home)")
            #expect(!home.contains("is asked to come to you"), "nothing claims he was asked before she asks")
            let come = "/v1/rides/\(ride.id)/come"
            let bare = try await client.call(.post, come, as: nil, json: "{}", headers: cookie)
            #expect(bare.status == .forbidden && bare.errorCode == "cross_site_form", "\(bare.text)")
            #expect(try await world.store.latestEvent(rideID: ride.id, kinds: [.comeRequested]) == nil, "refused: nothing recorded")
            let sent = try await client.call(.post, come, as: nil, json: "{}", headers: cookie.merging(["X-CSRF-Token": csrf]) { $1 })
            #expect(sent.status == .created, "\(sent.text)")
            // The cookie opens the kerb's acts only, not another route.
            let cancel = try await client.call(.post, "/v1/rides/\(ride.id)/cancel", as: nil, json: "{}",
                                               headers: cookie.merging(["X-CSRF-Token": csrf]) { $1 })
            #expect(cancel.status == .unauthorized, "\(cancel.text)")
        }
        await world.store.close()
    }
}
