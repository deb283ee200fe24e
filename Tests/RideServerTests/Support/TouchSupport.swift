import BeaconCore
import Foundation
import RideServer
@testable import RideStore
import RideBeaconTesting

/// What a device would post: the counterpart's identity for a slot, as JSON.
struct ProofBody {
    var identity: BeaconIdentity
    var slot: UInt64
    var observedAt: Date
    var peakRssiDbm = -41.5
    var samples = 12
    /// The observation window (both, or neither: the instant `observedAt`).
    var observedFrom: Date?
    var observedUntil: Date?

    /// The proof `side` posts after seeing its counterpart's beacon at `time` (its current slot).
    init(ride key: Data, by side: BeaconSide, at time: Date, period: Int = 30) throws {
        let identity = try RotatingIdentity(rideKey: key, period: period)
        slot = identity.slot(at: time.timeIntervalSince1970)
        self.identity = identity.identity(of: side.counterpart, slot: slot)
        observedAt = time
    }

    /// The proof with a window that began `seconds` before `observedAt` and ends at it.
    func held(for seconds: TimeInterval) -> ProofBody {
        var body = self
        body.observedFrom = observedAt.addingTimeInterval(-seconds)
        body.observedUntil = observedAt
        return body
    }

    var json: String {
        let format = { (date: Date) in Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date) }
        let window = (observedFrom.map { #","observedFrom":"\#(format($0))""# } ?? "")
            + (observedUntil.map { #","observedUntil":"\#(format($0))""# } ?? "")
        return #"{"uuid":"\#(identity.uuid.uuidString)","major":\#(identity.major),"minor":\#(identity.minor),"slot":\#(slot),"peakRssiDbm":\#(peakRssiDbm),"samples":\#(samples),"observedAt":"\#(format(observedAt))"\#(window)}"#
    }
}

extension World {
    /// A ride accepted and arrived, with its own random key.
    func arrivedRide(key: Data = Data((0..<32).map { _ in UInt8.random(in: 0...255) })) async throws -> RideRecord {
        let ride = try await acceptedRide(key: key)
        return try await store.transition(rideID: ride.id, to: .arrived, by: driver.id, detail: nil, idempotency: nil)
    }

    func acceptedRide(key: Data) async throws -> RideRecord {
        let request = try await store.createRideRequest(
            NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"), passengerID: passenger.id, idempotency: nil)
        return try await store.accept(requestID: request.id, driverID: driver.id, rideKey: key, idempotency: nil)
    }
}
