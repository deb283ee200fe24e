import BeaconCore
import Foundation

/// A touch proof one side still has to post for an arrived ride.
struct PendingTouch: Sendable {
    let rideID: String
    let key: Data
    let period: Int
    /// Who posts: it proves it saw its counterpart's beacon.
    let side: BeaconSide

    /// Both sides' proofs for the ride an arrival answered with (the driver sees the ride's key).
    static func both(afterArrival body: [String: Any]) -> [PendingTouch] {
        guard let id = body["id"] as? String, let encoded = body["key"] as? String, let key = Data(base64Encoded: encoded) else { return [] }
        let period = body["identityPeriodSeconds"] as? Int ?? RotatingIdentity.defaultPeriod
        return [BeaconSide.driver, .passenger].map { PendingTouch(rideID: id, key: key, period: period, side: $0) }
    }

    /// What the device would post right now: its counterpart's identity in the current slot.
    func body(at now: Date = Date()) -> String? {
        guard let identity = try? RotatingIdentity(rideKey: key, period: period) else { return nil }
        let slot = identity.slot(at: now.timeIntervalSince1970)
        let seen = identity.identity(of: side.counterpart, slot: slot)
        let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(now)
        return #"{"uuid":"\#(seen.uuid.uuidString)","major":\#(seen.major),"minor":\#(seen.minor),"slot":\#(slot),"peakRssiDbm":-41.5,"samples":12,"observedAt":"\#(time)"}"#
    }
}
