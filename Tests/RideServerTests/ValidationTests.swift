import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Bad input gets a clear 4xx naming what is wrong, and changes nothing.
@Suite("Input validation and error shapes")
struct ValidationTests {
    @Test(arguments: StoreKind.available)
    func badBodiesAre400sNamingTheField(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let long = String(repeating: "x", count: 501)
        let cases: [(body: String, code: String, field: String?)] = [
            (#"{"passengerName":"Ana","pickup":"a","dropoff":"b","seats":2}"#, "invalid_field", "seats"),
            (#"{"passengerName":"Ana","pickup":42,"dropoff":"b"}"#, "invalid_field", "pickup"),
            (#"{"passengerName":"","pickup":"a","dropoff":"b"}"#, "invalid_field", "passengerName"),
            (#"{"passengerName":"Ana","pickup":"   ","dropoff":"b"}"#, "invalid_field", "pickup"),
            (#"{"passengerName":"Ana","pickup":"a","dropoff":"\#(long)"}"#, "invalid_field", "dropoff"),
            (#"{"passengerName":"\#(String(repeating: "n", count: 201))","pickup":"a","dropoff":"b"}"#, "invalid_field", "passengerName"),
            (#"{"passengerName":"Ana","pickup":"a"}"#, "invalid_field", "dropoff"),
            (#"{"passengerName":"Ana","pickup":"a","dropoff":null}"#, "invalid_field", "dropoff"),
            (#"{"passengerName":"A\u0000na","pickup":"a","dropoff":"b"}"#, "invalid_field", "passengerName"),
            (#"{"passengerName":"Ana","pickup":"a","dropoff":"b","accessibilityNotes":["x"]}"#, "invalid_field", "accessibilityNotes"),
            (#"{"passengerName":"Ana","#, "invalid_json", nil),
            (#"["passengerName"]"#, "invalid_json", nil),
            ("", "invalid_json", nil),
        ]
        try await world.app().test(.router) { client in
            for (body, code, field) in cases {
                let response = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: body)
                #expect(response.status == .badRequest, "\(body)")
                #expect(response.errorCode == code, "\(body)")
                #expect(response.errorField == field, "\(body)")
                if let field { #expect(response.errorMessage.hasPrefix(field + ":"), "\(body)") }
            }
            // SQL metacharacters are just text.
            let quoted = try await client.call(.post, "/v1/ride-requests", as: world.passenger,
                                               json: #"{"passengerName":"O'Brien\"; DROP TABLE ride;--","pickup":"a","dropoff":"b"}"#)
            #expect(quoted.status == .created && quoted.string("passengerName") == #"O'Brien"; DROP TABLE ride;--"#)

            let role = try await client.call(.post, "/v1/accounts", as: world.admin, json: #"{"role":"pilot","displayName":"P"}"#)
            #expect(role.errorField == "role" && role.errorMessage.contains("passenger, driver, dispatcher, admin"))
            let vehicle = try await client.call(.post, "/v1/accounts", as: world.admin,
                                                json: #"{"role":"passenger","displayName":"P","vehicle":"bike"}"#)
            #expect(vehicle.errorField == "vehicle")
            let stray = try await client.call(.post, "/v1/rides/x/arrive", as: world.driver, json: #"{"force":true}"#)
            #expect(stray.status == .badRequest && stray.errorField == "force")
        }
        #expect(try await world.store.rideRequests(passengerID: world.passenger.id).count == 1)
        #expect(try await world.store.accounts().count == 6)
    }

    @Test(arguments: StoreKind.available)
    func bodiesOver64KiBAre413(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let huge = #"{"passengerName":"\#(String(repeating: "a", count: 65 * 1024))","pickup":"a","dropoff":"b"}"#
        try await world.app().test(.router) { client in
            let response = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: huge)
            #expect(response.status == .contentTooLarge && response.errorCode == "body_too_large")
            // The connection stays usable after the refusal.
            #expect(try await client.call(.get, "/v1/ride-requests", as: world.passenger).status == .ok)
        }
        #expect(try await world.store.rideRequests(passengerID: world.passenger.id).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func illegalTransitionsAre409NamingTheState(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            let early = try await client.call(.post, "/v1/rides/\(ride.id)/complete", as: world.driver)
            #expect(early.status == .conflict && early.errorCode == "illegal_transition" && early.errorState == "accepted")
            #expect(early.errorMessage.contains("accepted"))
            _ = try await client.call(.post, "/v1/rides/\(ride.id)/arrive", as: world.driver)
            let twice = try await client.call(.post, "/v1/rides/\(ride.id)/arrive", as: world.driver)
            #expect(twice.status == .conflict && twice.errorState == "arrived")
        }
        #expect(try await world.store.events(rideID: ride.id, after: 0).count == 3)
    }

    @Test func unknownRoutesMethodsAndParametersAreJSONErrors() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            let unknown = try await client.call(.get, "/v2/anything", as: world.passenger)
            #expect(unknown.status == .notFound && unknown.errorCode == "not_found")
            #expect(unknown.headers[.contentType]?.hasPrefix("application/json") == true)
            let wrongMethod = try await client.call(.delete, "/v1/rides/\(ride.id)", as: world.passenger)
            #expect(wrongMethod.status == .methodNotAllowed && wrongMethod.errorCode == "method_not_allowed")
            #expect(wrongMethod.headers[.allow] == "GET")
            let bothMethods = try await client.call(.put, "/v1/ride-requests", as: nil)
            #expect(bothMethods.status == .methodNotAllowed && bothMethods.headers[.allow] == "GET, POST")
            let limit = try await client.call(.get, "/v1/rides?limit=0", as: world.dispatcher)
            #expect(limit.status == .badRequest && limit.errorField == "limit")
            let resume = try await client.call(.get, "/v1/events", as: world.dispatcher, headers: ["Last-Event-ID": "soon"])
            #expect(resume.status == .badRequest && resume.errorField == "Last-Event-ID")
        }
    }

    @Test func touchProofBodiesAreValidatedBeforeTheRide() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        let proof = #"{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"slot":58000000,"peakRssiDbm":-41.5,"samples":12,"observedAt":"2026-01-02T03:04:05.678Z"}"#
        try await world.app().test(.router) { client in
            let path = "/v1/rides/\(ride.id)/touch-proofs"
            let valid = try await client.call(.post, path, as: world.passenger, json: proof)
            // Well-formed, so the ride's state is what refuses it (TouchProofTests covers the rest).
            #expect(valid.status == .conflict && valid.errorCode == "wrong_state")
            let badUUID = try await client.call(.post, path, as: world.passenger, json: proof.replacingOccurrences(of: "E2C56DB5", with: "nope"))
            #expect(badUUID.status == .badRequest && badUUID.errorField == "uuid")
            let badMajor = try await client.call(.post, path, as: world.driver, json: proof.replacingOccurrences(of: #""major":1"#, with: #""major":70000"#))
            #expect(badMajor.errorField == "major")
            #expect(try await client.call(.post, path, as: world.otherPassenger, json: proof).errorCode == "not_your_ride")
            #expect(try await client.call(.post, path, as: world.dispatcher, json: proof).status == .forbidden)
        }
        #expect(try await world.store.ride(id: ride.id)?.state == .accepted)
    }
}
