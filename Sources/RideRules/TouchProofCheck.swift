import BeaconCore
import Foundation
import RideWire

/// Why a touch proof is refused, as the API answers it (the server maps each case to its code).
public enum TouchProofRefusal: Error, Equatable, Sendable {
    /// A field no proof may have, found without a clock (400 `invalid_field`).
    case invalidField(field: String, message: String)
    /// Observed too long ago, or ahead of the server's clock (422 `stale_proof`).
    case staleProof(field: String, message: String)
    /// Its slot is not within one of the current (422 `stale_slot`).
    case staleSlot(message: String)
    /// Not the identity the counterpart advertises in that slot (422 `wrong_identity`).
    case wrongIdentity(message: String)

    /// The API's error code for it.
    public var code: APIErrorCode {
        switch self {
        case .invalidField: .invalidField
        case .staleProof: .staleProof
        case .staleSlot: .staleSlot
        case .wrongIdentity: .wrongIdentity
        }
    }

    public var field: String {
        switch self {
        case .invalidField(let field, _), .staleProof(let field, _): field
        case .staleSlot: "slot"
        case .wrongIdentity: "uuid"
        }
    }

    public var message: String {
        switch self {
        case .invalidField(_, let message), .staleProof(_, let message), .staleSlot(let message), .wrongIdentity(let message): message
        }
    }
}

/// A proof that passed `TouchProofCheck`: its parsed values.
public struct CheckedTouchProof: Equatable, Sendable {
    public var uuid: UUID
    public var slot: UInt64
    public var observedAt: Date
    /// The observation window, `from <= observedAt <= until` (the instant `observedAt` when the
    /// proof gave none).
    public var from: Date
    public var until: Date
}

/// The touch-proof check, once (issue 38): the server's route, the in-memory double and any
/// future surface run these steps in this order, and the first failure is the answer.
///
/// 1. `validate`, without a clock: uuid, major, minor, slot, peak RSSI, samples, `observedAt`,
///    the window (`observedFrom` and `observedUntil` both or neither, in order, at most
///    `MutualTouchRule.maximumWindow` long);
/// 2. `verify`, on the server's clock: observed at most `TouchProof.maximumAge` ago and at
///    most `maximumAhead` ahead (its window's end too), the slot within one of the current, and
///    the identity the counterpart's beacon advertises in that slot, derived from the ride key.
public enum TouchProofCheck {
    /// Step 1: what can be checked without a clock. The server runs it when decoding the body.
    public static func validate(_ proof: TouchProof) throws(TouchProofRefusal) -> CheckedTouchProof {
        guard let uuid = UUID(uuidString: proof.uuid) else { throw .invalidField(field: "uuid", message: "must be a UUID like 8-4-4-4-12 hex digits") }
        guard TouchProof.componentRange.contains(proof.major) else { throw .invalidField(field: "major", message: "must be 0...65535") }
        guard TouchProof.componentRange.contains(proof.minor) else { throw .invalidField(field: "minor", message: "must be 0...65535") }
        guard proof.slot >= 0 else { throw .invalidField(field: "slot", message: "must not be negative") }
        guard TouchProof.peakRssiRange.contains(proof.peakRssiDbm) else { throw .invalidField(field: "peakRssiDbm", message: "must be -127...20 dBm") }
        guard TouchProof.samplesRange.contains(proof.samples) else { throw .invalidField(field: "samples", message: "must be 1...100000") }
        guard let observedAt = WireDates.parse(proof.observedAt) else {
            throw .invalidField(field: "observedAt", message: "must be an RFC 3339 date-time")
        }
        let (from, until) = try window(proof, at: observedAt)
        return CheckedTouchProof(uuid: uuid, slot: UInt64(proof.slot), observedAt: observedAt, from: from, until: until)
    }

    /// The observation window `observedFrom...observedUntil` (both given, or neither: then the
    /// instant `observedAt`).
    private static func window(_ proof: TouchProof, at observedAt: Date) throws(TouchProofRefusal) -> (Date, Date) {
        switch (proof.observedFrom, proof.observedUntil) {
        case (nil, nil):
            return (observedAt, observedAt)
        case (nil, _):
            throw .invalidField(field: "observedFrom", message: "must be given with observedUntil (the observation window)")
        case (_, nil):
            throw .invalidField(field: "observedUntil", message: "must be given with observedFrom (the observation window)")
        case (let fromText?, let untilText?):
            guard let from = WireDates.parse(fromText) else { throw .invalidField(field: "observedFrom", message: "must be an RFC 3339 date-time") }
            guard let until = WireDates.parse(untilText) else { throw .invalidField(field: "observedUntil", message: "must be an RFC 3339 date-time") }
            guard from <= observedAt else { throw .invalidField(field: "observedFrom", message: "must not be after observedAt") }
            guard observedAt <= until else { throw .invalidField(field: "observedUntil", message: "must not be before observedAt") }
            let length = until.timeIntervalSince(from)
            guard length <= MutualTouchRule.maximumWindow else {
                throw .invalidField(field: "observedFrom",
                                    message: "the observation window is \(Int(length.rounded(.up))) s long; at most \(Int(MutualTouchRule.maximumWindow)) s")
            }
            return (from, until)
        }
    }

    /// Steps 1 and 2: the proof `side` sent for the ride whose identities `identity` derives,
    /// judged at `now` (the server's clock).
    public static func verify(_ proof: TouchProof, by side: TouchSide, identity: RotatingIdentity,
                              now: Date) throws(TouchProofRefusal) -> CheckedTouchProof {
        let checked = try validate(proof)
        let age = now.timeIntervalSince(checked.observedAt)
        guard age <= TouchProof.maximumAge else {
            throw .staleProof(field: "observedAt",
                              message: "the touch was observed \(Int(age.rounded(.down))) s ago; proofs older than \(Int(TouchProof.maximumAge)) s are refused")
        }
        guard -age <= TouchProof.maximumAhead else {
            throw .staleProof(field: "observedAt",
                              message: "observedAt is \(Int((-age).rounded(.up))) s ahead of the server's clock; check the device's clock")
        }
        let ahead = checked.until.timeIntervalSince(now)
        guard ahead <= TouchProof.maximumAhead else {
            throw .staleProof(field: "observedUntil",
                              message: "observedUntil is \(Int(ahead.rounded(.up))) s ahead of the server's clock; check the device's clock")
        }
        let unixNow = now.timeIntervalSince1970
        guard identity.acceptedSlots(at: unixNow).contains(checked.slot) else {
            throw .staleSlot(message: "slot \(checked.slot) is not within 1 of the server's current slot \(identity.slot(at: unixNow)) (period \(identity.period) s); a beacon recorded earlier does not prove a touch now")
        }
        let observed = BeaconIdentity(uuid: checked.uuid, major: UInt16(proof.major), minor: UInt16(proof.minor))
        let counterpart = side.counterpart.beaconSide
        guard observed == identity.identity(of: counterpart, slot: checked.slot) else {
            let hint = observed == identity.identity(of: side.beaconSide, slot: checked.slot)
                ? "it is your own beacon's identity; report the \(counterpart.rawValue)'s beacon"
                : "it is not this ride's \(counterpart.rawValue) beacon in slot \(checked.slot)"
            throw .wrongIdentity(message: "the observed identity does not match: \(hint)")
        }
        return checked
    }
}

extension TouchSide {
    /// The beacon this side's device advertises.
    public var beaconSide: BeaconSide { self == .passenger ? .passenger : .driver }

    /// The side whose device advertises `beacon`.
    public init(_ beacon: BeaconSide) { self = beacon == .passenger ? .passenger : .driver }
}
