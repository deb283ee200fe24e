import Foundation
import HummingbirdTesting
import RideBeaconTesting
import RideServer
@testable import RideStore
import Testing

/// One ride at a time, short codes, dispatcher actions and the driver's ETA over HTTP.
@Suite("API: one ride at a time, short codes, dispatcher actions, ETA")
struct OneRideAtATimeAPITests {
    static let request = #"{"pickup":"Main St 1","dropoff":"Station","accessibilityNotes":"guide dog"}"#

    @Test(arguments: StoreKind.available)
    func secondRequestsAndSecondRidesAre409sNamingTheExistingOne(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let first = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Self.request)
            #expect(first.status == .created && first.string("passengerName") == "Ana", "the account's name when none is given")
            let code = try #require(first.string("code"))
            let second = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Self.request)
            #expect(second.status == .conflict && second.errorCode == "passenger_has_active_ride")
            #expect(second.error["existingId"] as? String == first.id)
            #expect(try await world.store.rideRequests(passengerID: world.passenger.id).count == 1, "the refusal wrote nothing")

            // Accepted by its short code, in any case; the same driver again gets the same ride.
            let accepted = try await client.call(.post, "/v1/ride-requests/\(code.lowercased())/accept", as: world.driver)
            #expect(accepted.status == .ok && accepted.string("code") == code && accepted.string("pickup") == "Main St 1")
            let again = try await client.call(.post, "/v1/ride-requests/\(code)/accept", as: world.driver)
            #expect(again.status == .ok && again.id == accepted.id && again.string("key") == accepted.string("key"))
            let rival = try await client.call(.post, "/v1/ride-requests/\(code)/accept", as: world.otherDriver)
            #expect(rival.status == .conflict && rival.errorCode == "already_taken")

            // The driver cannot take a second ride while this one is active.
            let other = try await client.call(.post, "/v1/ride-requests", as: world.otherPassenger, json: Self.request)
            let busy = try await client.call(.post, "/v1/ride-requests/\(other.id)/accept", as: world.driver)
            #expect(busy.status == .conflict && busy.errorCode == "driver_has_active_ride" && busy.error["existingId"] as? String == accepted.id)
            #expect(try await world.store.rideRequest(id: other.id)?.status == .open)

            // The passenger still cannot ask again while the ride is active.
            let meanwhile = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Self.request)
            #expect(meanwhile.errorCode == "passenger_has_active_ride" && meanwhile.error["existingId"] as? String == accepted.id)

            // Every ride path takes the code.
            #expect(try await client.call(.get, "/v1/rides/\(code)", as: world.passenger).id == accepted.id)
            #expect(try await client.call(.get, "/v1/rides/ZZZZ", as: world.passenger).status == .notFound)
        }
    }

    @Test(arguments: StoreKind.available)
    func dispatchersAssignAndCancelWithAReasonKeptInHistory(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.router) { client in
            let waiting = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Self.request)
            let code = try #require(waiting.string("code"))
            let notADriver = try await client.call(.post, "/v1/ride-requests/\(code)/assign", as: world.dispatcher,
                                                   json: #"{"driverId":"\#(world.otherPassenger.id)"}"#)
            #expect(notADriver.status == .badRequest && notADriver.errorField == "driverId")
            let byDriver = try await client.call(.post, "/v1/ride-requests/\(code)/assign", as: world.driver,
                                                 json: #"{"driverId":"\#(world.driver.id)"}"#)
            #expect(byDriver.status == .forbidden)
            let assigned = try await client.call(.post, "/v1/ride-requests/\(code)/assign", as: world.dispatcher,
                                                 json: #"{"driverId":"\#(world.driver.id)"}"#)
            #expect(assigned.status == .ok && assigned.json["key"] == nil)
            #expect((assigned.json["driver"] as? [String: Any])?["name"] as? String == "Ben")
            let history = try await world.store.events(rideID: assigned.id, after: 0)
            #expect(history.last?.actorID == world.dispatcher.id && history.last?.detail == "assigned by a dispatcher")

            let reasonless = try await client.call(.post, "/v1/rides/\(code)/cancel", as: world.dispatcher, json: "{}")
            #expect(reasonless.status == .badRequest && reasonless.errorField == "reason")
            #expect(try await world.store.ride(id: assigned.id)?.state == .accepted, "the refusal changed nothing")
            let cancelled = try await client.call(.post, "/v1/rides/\(code)/cancel", as: world.dispatcher, json: #"{"reason":"passenger phoned"}"#)
            #expect(cancelled.status == .ok && cancelled.string("state") == "cancelled")
            #expect(try await world.store.events(rideID: assigned.id, after: 0).last?.detail == "passenger phoned")

            // A waiting request, cancelled by a dispatcher with a reason.
            let next = try await client.call(.post, "/v1/ride-requests", as: world.otherPassenger, json: Self.request)
            let withdrawn = try await client.call(.post, "/v1/ride-requests/\(try #require(next.string("code")))/cancel", as: world.dispatcher,
                                                  json: #"{"reason":"duplicate booking"}"#)
            #expect(withdrawn.status == .ok && withdrawn.string("status") == "cancelled" && withdrawn.json["passengerId"] == nil)
            let all = try await world.store.events(after: 0, limit: 100)
            #expect(all.last?.requestID == next.id && all.last?.detail == "duplicate booking")
        }
    }

    /// Issue 37: "ETA 0" (he is turning into the street) was flagged STUCK at once.
    @Test func anETAOfZeroIsNotStuckAtOnce() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        let clock = SteppedClock(Date())
        try await world.app(configure: { $0.now = clock.reading }).test(.router) { client in
            let given = try await client.call(.post, "/v1/rides/\(ride.id)/eta", as: world.driver, json: #"{"minutes":0}"#)
            #expect(given.status == .ok && given.json["stuck"] as? Bool == false)
            clock.advance(60)
            #expect(try await client.call(.get, "/v1/rides/\(ride.id)", as: world.dispatcher).json["stuck"] as? Bool == false)
            clock.advance(5 * 60)
            #expect(try await client.call(.get, "/v1/rides/\(ride.id)", as: world.dispatcher).json["stuck"] as? Bool == true)
        }
    }

    @Test(arguments: StoreKind.available)
    func theDriversETAReachesTheRideAndItsHistory(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        let clock = SteppedClock(Date())
        try await world.app(configure: { $0.now = clock.reading }).test(.router) { client in
            let bad = try await client.call(.post, "/v1/rides/\(ride.id)/eta", as: world.driver, json: #"{"minutes":-1}"#)
            #expect(bad.status == .badRequest && bad.errorField == "minutes")
            let stranger = try await client.call(.post, "/v1/rides/\(ride.id)/eta", as: world.otherDriver, json: #"{"minutes":5}"#)
            #expect(stranger.status == .notFound)
            let given = try await client.call(.post, "/v1/rides/\(ride.id)/eta", as: world.driver, json: #"{"minutes":7}"#)
            #expect(given.status == .ok && given.json["etaMinutes"] as? Int == 7 && given.json["stuck"] as? Bool == false)
            #expect(try await world.store.events(rideID: ride.id, after: 0).last?.detail == "ETA 7 minutes")
            // Five minutes past its ETA an accepted ride is flagged for dispatchers, not before.
            clock.advance(11 * 60)
            #expect(try await client.call(.get, "/v1/rides/\(ride.id)", as: world.dispatcher).json["stuck"] as? Bool == false)
            clock.advance(2 * 60)
            let late = try await client.call(.get, "/v1/rides/\(ride.id)", as: world.dispatcher)
            #expect(late.json["stuck"] as? Bool == true && late.string("pickup") == "Main St 1")
            _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
            let tooLate = try await client.call(.post, "/v1/rides/\(ride.id)/eta", as: world.driver, json: #"{"minutes":3}"#)
            #expect(tooLate.status == .conflict && tooLate.errorState == "arrived")
        }
    }
}
