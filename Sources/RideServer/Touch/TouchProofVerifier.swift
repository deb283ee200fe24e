import BeaconCore
import Foundation
import RideStore

/// The checks a touch proof must pass before it is recorded, other than who the caller is and
/// the ride's state: it is fresh, its slot is current, and its identity is the one the
/// caller's counterpart advertises in that slot, derived from the ride key. Pure: the clock
/// reading is an argument.
struct TouchProofVerifier: Sendable {
    /// The deployment's identity slot period in seconds.
    let period: Int
    /// A proof describes a touch that just happened; one older than this is refused.
    static let maximumAge: TimeInterval = TouchProof.maximumAge
    /// Devices' clocks may run slightly ahead of the server's.
    static let maximumAhead: TimeInterval = TouchProof.maximumAhead

    func verify(_ body: TouchProof, side: TouchSide, ride: RideRecord, accountID: String, now: Date) throws -> VerifiedTouchProof {
        guard let observedAt = APIJSON.parseTimestamp(body.observedAt) else {
            throw APIError.invalidField("observedAt", "must be an RFC 3339 date-time")
        }
        let age = now.timeIntervalSince(observedAt)
        guard age <= Self.maximumAge else {
            throw APIError.touchRejected(.staleProof, field: "observedAt",
                                         "the touch was observed \(Int(age.rounded(.down))) s ago; proofs older than \(Int(Self.maximumAge)) s are refused")
        }
        guard -age <= Self.maximumAhead else {
            throw APIError.touchRejected(.staleProof, field: "observedAt",
                                         "observedAt is \(Int((-age).rounded(.up))) s ahead of the server's clock; check the device's clock")
        }
        let window = try body.observationWindow(at: observedAt)
        let ahead = window.until.timeIntervalSince(now)
        guard ahead <= Self.maximumAhead else {
            throw APIError.touchRejected(.staleProof, field: "observedUntil",
                                         "observedUntil is \(Int(ahead.rounded(.up))) s ahead of the server's clock; check the device's clock")
        }
        let identity: RotatingIdentity
        do {
            identity = try RotatingIdentity(rideKey: ride.key, period: period)
        } catch {
            throw APIError(.internalServerError, code: .internalError, "the ride's key cannot derive identities: \(error)")
        }
        let current = identity.slot(at: now.timeIntervalSince1970)
        let slot = UInt64(body.slot)
        guard identity.acceptedSlots(at: now.timeIntervalSince1970).contains(slot) else {
            throw APIError.touchRejected(.staleSlot, field: "slot",
                                         "slot \(slot) is not within 1 of the server's current slot \(current) (period \(period) s); a beacon recorded earlier does not prove a touch now")
        }
        guard let uuid = UUID(uuidString: body.uuid) else { throw APIError.invalidField("uuid", "must be a UUID like 8-4-4-4-12 hex digits") }
        let observed = BeaconIdentity(uuid: uuid, major: UInt16(body.major), minor: UInt16(body.minor))
        let counterpart = side.counterpart.beaconSide
        guard observed == identity.identity(of: counterpart, slot: slot) else {
            let hint = observed == identity.identity(of: side.beaconSide, slot: slot)
                ? "it is your own beacon's identity; report the \(counterpart.rawValue)'s beacon"
                : "it is not this ride's \(counterpart.rawValue) beacon in slot \(slot)"
            throw APIError.touchRejected(.wrongIdentity, field: "uuid", "the observed identity does not match: \(hint)")
        }
        return VerifiedTouchProof(verified: body, uuid: uuid, rideID: ride.id, side: side, accountID: accountID,
                                  observedAt: observedAt, window: window, receivedAt: now)
    }
}

extension TouchSide {
    var beaconSide: BeaconSide { self == .passenger ? .passenger : .driver }
}

extension APIError {
    /// A well-formed proof that does not prove a touch (422, code names the reason).
    static func touchRejected(_ code: APIErrorCode, field: String, _ message: String) -> APIError {
        APIError(.unprocessableContent, code: code, message, field: field)
    }
}
