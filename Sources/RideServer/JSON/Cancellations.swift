import Foundation
import RideStore
import RideWire

// Issue 25: a cancelled ride or request says who cancelled it and why (`RideCancellation`),
// read from its history's last `cancelled` event: one read per cancelled item, none for others.

extension RideHistoryStore {
    func withCancellation(_ ride: Ride) async throws -> Ride {
        guard ride.state == .cancelled, let event = try await cancellation(requestID: ride.requestID) else { return ride }
        var ride = ride
        ride.cancellation = RideCancellation(event: event, passengerID: ride.passengerID, driverID: ride.driverID)
        return ride
    }

    func withCancellations(_ rides: [Ride]) async throws -> [Ride] {
        var answer: [Ride] = []
        answer.reserveCapacity(rides.count)
        for ride in rides { answer.append(try await withCancellation(ride)) }
        return answer
    }

    /// `passengerID`: the request's passenger (the wire request may hide it from drivers).
    func withCancellation(_ request: RideRequest, passengerID: String) async throws -> RideRequest {
        guard request.status == .cancelled, let event = try await cancellation(requestID: request.id) else { return request }
        var request = request
        request.cancellation = RideCancellation(event: event, passengerID: passengerID, driverID: nil)
        return request
    }
}
