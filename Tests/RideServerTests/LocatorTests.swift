import Foundation
import HummingbirdTesting
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// `POST /v1/rides/{id}/locator` over HTTP on both stores: only the ride's passenger, only
/// while `arrived`, at most once per 10 s per ride; every refusal has its own code and leaves
/// the history alone; an accepted request is a `locator_requested` event on the ride's stream.
/// The server's clock is stepped, never waited for.
@Suite("Locator requests", .timeLimit(.minutes(2)))
struct LocatorTests {
    static let worlds = PerStoreKind { try await World.make($0) }
    static func world(_ kind: StoreKind) async throws -> World { try await worlds.value(for: kind) }

    static func historyLength(_ world: World, _ ride: RideRecord) async throws -> Int {
        try await world.store.events(rideID: ride.id, after: 0).count
    }

    @Test(arguments: StoreKind.available)
    func refusesTheWrongPersonTheWrongStateAndUnknownRides(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let ride = try await world.arrivedRide()
        let accepted = try await world.acceptedRide(key: Data(repeating: 4, count: 32))
        let cancelled = try await world.arrivedRide()
        _ = try await world.store.transition(rideID: cancelled.id, to: .cancelled, by: world.passenger.id, detail: nil, idempotency: nil)
        try await world.app().test(.live) { client in
            let path = "/v1/rides/\(ride.id)/locator"
            let before = try await Self.historyLength(world, ride)
            func refusal(_ target: String, as member: Member?) async throws -> (Int, String?) {
                let response = try await client.call(.post, target, as: member)
                return (Int(response.status.code), response.errorCode)
            }
            // Roles that never ask: the ride's own driver too (the passenger is the one searching).
            #expect(try await refusal(path, as: world.driver) == (403, "forbidden"))
            #expect(try await refusal(path, as: world.dispatcher) == (403, "forbidden"))
            #expect(try await refusal(path, as: world.admin) == (403, "forbidden"))
            #expect(try await refusal(path, as: nil) == (401, "unauthenticated"))
            // A passenger, but not this ride's: exactly as if the ride did not exist (issue 24).
            let stranger = try await client.call(.post, path, as: world.otherPassenger)
            #expect(stranger.status == .notFound && stranger.errorCode == "not_found")
            #expect(!stranger.text.contains("passenger"))
            #expect(try await refusal("/v1/rides/no-such-ride/locator", as: world.passenger) == (404, "not_found"))
            // Before the arrival and after the end: the state is named.
            let early = try await client.call(.post, "/v1/rides/\(accepted.id)/locator", as: world.passenger)
            #expect(early.status == .conflict && early.errorCode == "wrong_state" && early.errorState == "accepted")
            let late = try await client.call(.post, "/v1/rides/\(cancelled.id)/locator", as: world.passenger)
            #expect(late.status == .conflict && late.errorCode == "wrong_state" && late.errorState == "cancelled")
            // A body is not part of the request.
            let body = try await client.call(.post, path, as: world.passenger, json: #"{"loud":true}"#)
            #expect(body.status == .badRequest && body.errorCode == "invalid_field" && body.errorField == "loud")
            #expect(try await Self.historyLength(world, ride) == before, "refusals change nothing")
            #expect(try await world.store.events(rideID: accepted.id, after: 0).allSatisfy { $0.kind == .stateChanged })
        }
    }

    @Test(arguments: StoreKind.available)
    func acceptsThenRefusesTooOftenWithRetryAfterThenAcceptsAgain(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let path = "/v1/rides/\(ride.id)/locator"
            let first = try await client.call(.post, path, as: world.passenger)
            #expect(first.status == .accepted, "\(first.text)")
            #expect(first.string("rideId") == ride.id && first.json["soundSeconds"] as? Int == 30)
            let eventID = try #require(first.json["eventId"] as? Int)
            let history = try await world.store.events(rideID: ride.id, after: 0)
            let event = try #require(history.last)
            #expect(event.id == Int64(eventID) && event.kind == .locatorRequested && event.state == .arrived)
            #expect(event.actorID == world.passenger.id && event.sequence == history.count)
            #expect(try await world.store.ride(id: ride.id)?.state == .arrived, "the ride's state is untouched")

            clock.advance(4)
            let again = try await client.call(.post, path, as: world.passenger)
            #expect(again.status == .tooManyRequests && again.errorCode == "rate_limited")
            #expect(again.headers[.retryAfter] == "6")
            #expect(try await Self.historyLength(world, ride) == history.count, "a refused request writes nothing")

            clock.advance(6)
            #expect(try await client.call(.post, path, as: world.passenger).status == .accepted)
            let kinds = try await world.store.events(rideID: ride.id, after: 0).map(\.kind)
            #expect(kinds.filter { $0 == .locatorRequested }.count == 2)
            let metrics = try await client.call(.get, "/metrics", as: nil).text
            #expect(metrics.contains(#"ridebeacon_rate_limited_total{limit="locator"} 1"#), "\(metrics)")
        }
    }

    /// The limit is the ride's, kept in the database: a second server on the same store
    /// refuses what the first just accepted.
    @Test(arguments: StoreKind.available)
    func theLimitHoldsAcrossServers(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let otherStore = try await StoreLocation.open(world.location, operationTimeout: StoreKind.testOperationTimeout)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { first in
            try await world.app(store: otherStore, configure: { $0.now = clock.reading }).test(.live) { second in
                #expect(try await first.call(.post, "/v1/rides/\(ride.id)/locator", as: world.passenger).status == .accepted)
                let refused = try await second.call(.post, "/v1/rides/\(ride.id)/locator", as: world.passenger)
                #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "10")
            }
        }
        await otherStore.close()
    }

    /// The driver's device follows the ride's stream: the request arrives there as its own
    /// event name, with the ride's state unchanged.
    @Test(arguments: StoreKind.available)
    func theRequestReachesTheDriversEventStream(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let ride = try await world.arrivedRide()
        try await world.app().test(.live) { client in
            let port = try #require(client.port)
            let stream = try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events", token: world.driver.token)
            defer { stream.close() }
            _ = await stream.wait { $0.contains { $0.event == "arrived" } }
            #expect(try await client.call(.post, "/v1/rides/\(ride.id)/locator", as: world.passenger).status == .accepted)
            let messages = await stream.wait { $0.contains { $0.event == "locator_requested" } }
            let request = try #require(messages.first { $0.event == "locator_requested" })
            #expect(request.json["kind"] as? String == "locator_requested")
            #expect(request.json["state"] as? String == "arrived" && request.json["rideId"] as? String == ride.id)
            #expect(request.json["actorId"] as? String == world.passenger.id)
        }
    }
}
