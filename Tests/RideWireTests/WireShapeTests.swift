import Foundation
import RideWire
import Testing

/// The JSON keys are the contract's (openapi.yaml), whatever the Swift names are.
@Suite("Wire types: JSON shape")
struct WireShapeTests {
    static let at = Date(timeIntervalSince1970: 1_767_225_600)

    static func keys(_ value: some Encodable) throws -> Set<String> {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDates.format(date))
        }
        let object = try JSONSerialization.jsonObject(with: try encoder.encode(value)) as? [String: Any]
        return Set(try #require(object).keys)
    }

    @Test func rideUsesTheContractsKeysAndOmitsAnUnsharedKey() throws {
        var ride = Ride(id: "r", requestID: "q", passengerID: "p", driverID: "d", passenger: RideParty(name: "Ana"),
                        driver: RideParty(name: "Ben", vehicle: "blue Prius"), state: .accepted, createdAt: Self.at, stateChangedAt: Self.at)
        #expect(try Self.keys(ride) == ["id", "requestId", "passengerId", "driverId", "passenger", "driver", "state", "createdAt", "stateChangedAt"])
        ride.key = "AAAA"
        ride.identityPeriodSeconds = 30
        #expect(try Self.keys(ride).isSuperset(of: ["key", "identityPeriodSeconds"]))
    }

    @Test func eventsAndRequestsUseTheContractsKeys() throws {
        let event = RideEvent(id: 1, requestID: "q", rideID: "r", sequence: 2, state: .arrived, actorID: "d", at: Self.at, detail: nil)
        #expect(try Self.keys(event) == ["id", "requestId", "rideId", "sequence", "kind", "state", "actorId", "at"])
        let request = RideRequest(id: "q", passengerID: nil, passengerName: "Ana", pickup: "A", dropoff: "B",
                                  accessibilityNotes: nil, status: .open, createdAt: Self.at, rideID: nil)
        #expect(try Self.keys(request) == ["id", "passengerName", "pickup", "dropoff", "status", "createdAt"])
        // Pages always carry nextAfter, null on the last page.
        #expect(try Self.keys(RideRequestList(rideRequests: [], nextAfter: nil)) == ["rideRequests", "nextAfter"])
        #expect(try Self.keys(RideList(rides: [], nextAfter: nil)) == ["rides", "nextAfter"])
    }

    @Test func eventKindDefaultsToAStateChangeAndKeepsUnknownKinds() throws {
        let old = #"{"id":1,"requestId":"q","rideId":"r","sequence":2,"state":"arrived","actorId":"d","at":"2026-01-01T00:00:00.000Z"}"#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(RideEvent.self, from: Data(old.utf8)).kind == .stateChanged)
        let locator = old.replacingOccurrences(of: #""state""#, with: #""kind":"locator_requested","state""#)
        #expect(try decoder.decode(RideEvent.self, from: Data(locator.utf8)).kind == .locatorRequested)
        let future = old.replacingOccurrences(of: #""state""#, with: #""kind":"horn_honked","state""#)
        let unknown = try decoder.decode(RideEvent.self, from: Data(future.utf8)).kind
        #expect(unknown.rawValue == "horn_honked" && !unknown.isStateChange)
    }

    @Test func errorBodyRoundTripsAndKeepsUnknownCodes() throws {
        let body = APIErrorBody(error: .init(code: .illegalTransition, message: "no", state: .completed))
        let data = try JSONEncoder().encode(body)
        #expect(String(decoding: data, as: UTF8.self).contains(#""code":"illegal_transition""#))
        #expect(try JSONDecoder().decode(APIErrorBody.self, from: data) == body)
        let future = try JSONDecoder().decode(APIErrorBody.self, from: Data(#"{"error":{"code":"brand_new","message":"m","state":"teleported"}}"#.utf8))
        #expect(future.error.code == APIErrorCode(rawValue: "brand_new") && future.error.state == "teleported")
    }

    @Test func lifecycleAndKeys() {
        #expect(RideState.cancelled.isFinal && !RideState.confirmed.isFinal)
        #expect(IdempotencyKey("has space") == nil && IdempotencyKey("ok-1")?.rawValue == "ok-1")
        #expect(WireDates.parse("2026-01-01t00:00:00z") == Self.at)
    }
}
