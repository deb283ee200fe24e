import Foundation
import HTTPTypes
import HummingbirdTesting
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// Issue 35 over HTTP on both stores: `PUT /v1/rides/{id}/position` by the ride's passenger or
/// driver while accepted or arrived; `GET …/position/other` gives each the other's, exactly;
/// `GET …/positions` gives a dispatcher both, coarse; anyone else gets what a ride that does
/// not exist gets. Ends delete them; bad bodies and rates are refused and store nothing.
@Suite("Ride positions", .timeLimit(.minutes(2)))
struct RidePositionTests {
    static let worlds = PerStoreKind { try await World.make($0) }
    static func world(_ kind: StoreKind) async throws -> World { try await worlds.value(for: kind) }

    static let driverFix = #"{"latitude":51.507351,"longitude":-0.127758,"accuracyMeters":6.5,"courseDegrees":92.5}"#
    static let passengerFix = #"{"latitude":51.50741,"longitude":-0.12801,"accuracyMeters":12}"#

    static func position(_ response: TestResponse) -> [String: Any]? {
        response.json["position"] as? [String: Any]
    }

    @Test(arguments: StoreKind.available)
    func eachPartySeesTheOtherExactlyAndNobodyElseSeesAnything(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let ride = try await world.acceptedRide()
        // Another ride, of another passenger and driver, under way at the same time.
        let otherRequest = try await world.store.createRideRequest(
            NewRideRequest(passengerName: "Eve", pickup: "Elm St 2", dropoff: "Park"), passengerID: world.otherPassenger.id, idempotency: nil)
        let otherRide = try await world.store.accept(requestID: otherRequest.id, driverID: world.otherDriver.id,
                                                     rideKey: Data(repeating: 3, count: 32), idempotency: nil)
        try await world.app().test(.router) { client in
            let base = "/v1/rides/\(ride.id)"
            #expect(try await client.call(.get, "\(base)/position/other", as: world.passenger).text == #"{"position":null}"#)
            let put = try await client.call(.put, "\(base)/position", as: world.driver, json: Self.driverFix)
            #expect(put.status == .noContent, "\(put.text)")
            #expect(put.text.isEmpty)
            #expect(try await client.call(.put, "\(base)/position", as: world.passenger, json: Self.passengerFix).status == .noContent)
            #expect(try await client.call(.put, "/v1/rides/\(otherRide.id)/position", as: world.otherDriver,
                                          json: #"{"latitude":48.85,"longitude":2.35,"accuracyMeters":3}"#).status == .noContent)

            // The passenger gets the driver's, exactly, course and all; never her own.
            let hers = try await client.call(.get, "\(base)/position/other", as: world.passenger)
            #expect(hers.status == .ok)
            let driver = try #require(Self.position(hers))
            #expect(driver["latitude"] as? Double == 51.507351 && driver["longitude"] as? Double == -0.127758)
            #expect(driver["accuracyMeters"] as? Double == 6.5 && driver["courseDegrees"] as? Double == 92.5)
            #expect(driver["recordedAt"] as? String != nil)
            // The driver gets hers.
            let his = try await client.call(.get, "\(base)/position/other", as: world.driver)
            let passenger = try #require(Self.position(his))
            #expect(passenger["latitude"] as? Double == 51.50741 && passenger["accuracyMeters"] as? Double == 12)
            #expect(passenger["courseDegrees"] == nil)

            // Another ride's passenger and driver: exactly as for a ride that does not exist.
            for member in [world.otherPassenger, world.otherDriver] {
                for (method, path, json) in [(HTTPRequest.Method.get, "\(base)/position/other", nil as String?),
                                             (.put, "\(base)/position", Self.passengerFix)] {
                    let refused = try await client.call(method, path, as: member, json: json)
                    #expect(refused.status == .notFound && refused.errorCode == "not_found", "\(method) \(path): \(refused.text)")
                    #expect(refused.errorMessage == "ride \(ride.id) not found")
                }
            }
            let none = try await client.call(.get, "/v1/rides/no-such-ride/position/other", as: world.passenger)
            #expect(none.status == .notFound && none.errorMessage == "ride no-such-ride not found")
            // Roles that never see a party's exact position.
            #expect(try await client.call(.get, "\(base)/position/other", as: world.dispatcher).status == .forbidden)
            #expect(try await client.call(.put, "\(base)/position", as: world.dispatcher, json: Self.driverFix).status == .forbidden)
            #expect(try await client.call(.get, "\(base)/position/other", as: world.admin).status == .forbidden)
            #expect(try await client.call(.get, "\(base)/position/other", as: nil).status == .unauthorized)
            for member in [world.passenger, world.driver, world.admin] {
                #expect(try await client.call(.get, "\(base)/positions", as: member).status == .forbidden)
            }

            // The dispatcher: both, coarse (0.01°, at least 1 000 m, no course).
            let board = try await client.call(.get, "\(base)/positions", as: world.dispatcher)
            #expect(board.status == .ok, "\(board.text)")
            let coarseDriver = try #require(board.json["driver"] as? [String: Any])
            let coarsePassenger = try #require(board.json["passenger"] as? [String: Any])
            #expect(coarseDriver["latitude"] as? Double == 51.51 && coarseDriver["longitude"] as? Double == -0.13)
            #expect(coarseDriver["accuracyMeters"] as? Double == 1000 && coarseDriver["courseDegrees"] == nil)
            #expect(coarsePassenger["latitude"] as? Double == 51.51 && coarsePassenger["accuracyMeters"] as? Double == 1000)
            #expect(!board.text.contains("51.507") && !board.text.contains("92.5"), "nothing exact: \(board.text)")
            let unknown = try await client.call(.get, "/v1/rides/no-such-ride/positions", as: world.dispatcher)
            #expect(unknown.status == .notFound)
            // The other ride's parties still see only their own ride's other party.
            let eve = try await client.call(.get, "/v1/rides/\(otherRide.id)/position/other", as: world.otherPassenger)
            #expect(Self.position(eve)?["latitude"] as? Double == 48.85)
            #expect(Self.position(try await client.call(.get, "/v1/rides/\(otherRide.id)/position/other", as: world.otherDriver)) == nil)
        }
    }

    /// Confirmed, cancelled and completed each delete both positions; a write after is 409
    /// `wrong_state` naming the state, and stores nothing.
    @Test(arguments: StoreKind.available)
    func theEndsDeleteThemAndRefuseMore(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        try await world.app().test(.router) { client in
            for end in [RideState.confirmed, .cancelled, .completed] {
                let ride = try await world.arrivedRide()
                let base = "/v1/rides/\(ride.id)"
                #expect(try await client.call(.put, "\(base)/position", as: world.driver, json: Self.driverFix).status == .noContent)
                #expect(try await client.call(.put, "\(base)/position", as: world.passenger, json: Self.passengerFix).status == .noContent)
                if end == .cancelled {
                    let cancelled = try await client.call(.post, "\(base)/cancel", as: world.passenger, json: "{}")
                    #expect(cancelled.status == .ok, "\(cancelled.text)")
                } else {
                    try await world.confirmAsOperator(rideID: ride.id)
                    if end == .completed {
                        #expect(try await client.call(.post, "\(base)/complete", as: world.driver).status == .ok)
                    }
                }
                #expect(try await world.store.positions(rideID: ride.id) == RidePositions(passenger: nil, driver: nil), "\(end)")
                #expect(try await client.call(.get, "\(base)/position/other", as: world.passenger).text == #"{"position":null}"#)
                #expect(try await client.call(.get, "\(base)/positions", as: world.dispatcher).text == #"{"driver":null,"passenger":null}"#)
                let late = try await client.call(.put, "\(base)/position", as: world.passenger, json: Self.passengerFix)
                #expect(late.status == .conflict && late.errorCode == "wrong_state" && late.errorState == end.rawValue, "\(late.text)")
                #expect(try await world.store.positions(rideID: ride.id) == RidePositions(passenger: nil, driver: nil))
            }
        }
    }

    /// Five at once, then one a second, per party of the ride: the sixth is 429 with
    /// Retry-After and is not stored; the other party's budget is its own.
    @Test(arguments: StoreKind.available)
    func aPartyIsLimitedToAboutOneASecond(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let ride = try await world.acceptedRide()
        // Live: /metrics answers only a loopback peer, and the router test has none.
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let path = "/v1/rides/\(ride.id)/position"
            func fix(_ latitude: Double) -> String { #"{"latitude":\#(latitude),"longitude":0,"accuracyMeters":5}"# }
            for index in 0..<5 {
                #expect(try await client.call(.put, path, as: world.driver, json: fix(10 + Double(index))).status == .noContent)
            }
            let refused = try await client.call(.put, path, as: world.driver, json: fix(20))
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited")
            #expect(refused.headers[.retryAfter] == "1")
            #expect(try await world.store.position(rideID: ride.id, party: .driver)?.latitude == 14, "the refused one is not stored")
            #expect(try await client.call(.put, path, as: world.passenger, json: fix(30)).status == .noContent, "her budget is her own")
            clock.advance(1)
            #expect(try await client.call(.put, path, as: world.driver, json: fix(21)).status == .noContent)
            #expect(try await world.store.position(rideID: ride.id, party: .driver)?.latitude == 21)
            let metrics = try await client.call(.get, "/metrics", as: nil).text
            #expect(metrics.contains(#"ridebeacon_rate_limited_total{limit="positions"} 1"#))
        }
    }

    /// Each field out of range, malformed or unknown: 400 naming the field, nothing stored.
    @Test(arguments: StoreKind.available)
    func badBodiesAreRefusedByFieldAndStoreNothing(kind: StoreKind) async throws {
        let world = try await Self.world(kind)
        let clock = SteppedClock()
        let ride = try await world.acceptedRide()
        let now = clock.now
        @Sendable func time(_ offset: TimeInterval) -> String { WireDates.format(now.addingTimeInterval(offset)) }
        let cases: [(body: String, code: String, field: String?, message: String)] = [
            (#"{"latitude":90.5,"longitude":0,"accuracyMeters":5}"#, "invalid_field", "latitude", "latitude: must be -90...90 degrees"),
            (#"{"latitude":-91,"longitude":0,"accuracyMeters":5}"#, "invalid_field", "latitude", "latitude: must be -90...90 degrees"),
            (#"{"latitude":"51","longitude":0,"accuracyMeters":5}"#, "invalid_field", "latitude", "latitude: must be a number"),
            (#"{"longitude":0,"accuracyMeters":5}"#, "invalid_field", "latitude", "latitude: is required"),
            (#"{"latitude":0,"longitude":180.01,"accuracyMeters":5}"#, "invalid_field", "longitude", "longitude: must be -180...180 degrees"),
            (#"{"latitude":0,"longitude":null,"accuracyMeters":5}"#, "invalid_field", "longitude", "longitude: must be a number, not null"),
            (#"{"latitude":0,"longitude":0,"accuracyMeters":0}"#, "invalid_field", "accuracyMeters",
             "accuracyMeters: must be more than 0 and at most 10000 m"),
            (#"{"latitude":0,"longitude":0,"accuracyMeters":10000.5}"#, "invalid_field", "accuracyMeters",
             "accuracyMeters: must be more than 0 and at most 10000 m"),
            (#"{"latitude":0,"longitude":0,"accuracyMeters":5,"courseDegrees":360}"#, "invalid_field", "courseDegrees",
             "courseDegrees: must be at least 0 and less than 360 degrees"),
            (#"{"latitude":0,"longitude":0,"accuracyMeters":5,"courseDegrees":-1}"#, "invalid_field", "courseDegrees",
             "courseDegrees: must be at least 0 and less than 360 degrees"),
            (#"{"latitude":0,"longitude":0,"accuracyMeters":5,"recordedAt":"yesterday"}"#, "invalid_field", "recordedAt",
             "recordedAt: must be an RFC 3339 date-time"),
            (#"{"latitude":0,"longitude":0,"accuracyMeters":5,"recordedAt":"\#(time(61))"}"#, "invalid_field", "recordedAt",
             "recordedAt: is more than 60 s ahead of the server's clock; check the device's clock"),
            (#"{"latitude":0,"longitude":0,"accuracyMeters":5,"recordedAt":"\#(time(-601))"}"#, "invalid_field", "recordedAt",
             "recordedAt: is more than 10 minutes old; send a fresh fix"),
            (#"{"latitude":0,"longitude":0,"accuracyMeters":5,"altitude":3}"#, "invalid_field", "altitude", "altitude: unknown field"),
            (#"{"latitude":0,"latitude":1,"longitude":0,"accuracyMeters":5}"#, "invalid_json", nil,
             #"the request body repeats the key "latitude""#),
            ("", "invalid_json", nil, "the request body must be a JSON object"),
        ]
        try await world.app(configure: { $0.now = clock.reading }).test(.router) { client in
            let path = "/v1/rides/\(ride.id)/position"
            for (body, code, field, message) in cases {
                let refused = try await client.call(.put, path, as: world.passenger, json: body)
                #expect(refused.status == .badRequest && refused.errorCode == code && refused.errorField == field, "\(body): \(refused.text)")
                #expect(refused.errorMessage == message, "\(body)")
            }
            #expect(try await world.store.positions(rideID: ride.id) == RidePositions(passenger: nil, driver: nil))
            // The edges themselves are accepted, and a given recordedAt is kept.
            let edge = #"{"latitude":-90,"longitude":180,"accuracyMeters":10000,"courseDegrees":0,"recordedAt":"\#(time(-600))"}"#
            #expect(try await client.call(.put, path, as: world.passenger, json: edge).status == .noContent)
            let kept = try await world.store.position(rideID: ride.id, party: .passenger)
            #expect(kept == RidePosition(latitude: -90, longitude: 180, accuracyMeters: 10000, courseDegrees: 0,
                                         recordedAt: now.addingTimeInterval(-600)))
        }
    }

    /// The passenger page reports her position with its session cookie: only on this route, and
    /// only with the session's CSRF token in X-CSRF-Token (else 403 `cross_site_form`, nothing
    /// stored); the page carries that token and the sentences for its position line.
    @Test func thePagesCookieReportsOnlyWithItsCSRFToken() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            let cookie = ["Cookie": "rb_passenger=\(world.passenger.token)"]
            let home = try await client.call(.get, "/", as: nil, headers: cookie).text
            let line = try #require(home.firstMatch(of: /<p id="position-line"[^>]*data-csrf="([^"]+)"[^>]*>/))
            let csrf = String(line.1)
            #expect(line.0.contains("role=\"status\"") && line.0.contains("this browser may not use your location"))
            let path = "/v1/rides/\(ride.id)/position"
            let bare = try await client.call(.put, path, as: nil, json: Self.passengerFix, headers: cookie)
            #expect(bare.status == .forbidden && bare.errorCode == "cross_site_form", "\(bare.text)")
            let forged = try await client.call(.put, path, as: nil, json: Self.passengerFix, headers: cookie.merging(["X-CSRF-Token": "forged"]) { $1 })
            #expect(forged.status == .forbidden && forged.errorCode == "cross_site_form")
            #expect(try await world.store.positions(rideID: ride.id) == RidePositions(passenger: nil, driver: nil), "refused: nothing stored")
            let sent = try await client.call(.put, path, as: nil, json: Self.passengerFix, headers: cookie.merging(["X-CSRF-Token": csrf]) { $1 })
            #expect(sent.status == .noContent, "\(sent.text)")
            #expect(try await world.store.position(rideID: ride.id, party: .passenger)?.latitude == 51.50741)
            // The cookie opens nothing else: not the other party's position, not a driver's report.
            #expect(try await client.call(.get, "\(path)/other", as: nil, headers: cookie).status == .unauthorized)
            let driverCookie = ["Cookie": "rb_passenger=\(world.driver.token)", "X-CSRF-Token": csrf]
            #expect(try await client.call(.put, path, as: nil, json: Self.driverFix, headers: driverCookie).status == .forbidden)
            #expect(try await world.store.position(rideID: ride.id, party: .driver) == nil)
        }
        await world.close()
    }
}
