import Foundation
import RideRules
import RideWire

/// Which proofs confirm a ride, chosen per deployment.
public enum TouchPolicy: String, Codable, Sendable, CaseIterable {
    /// Both sides' proofs, received within `MutualTouchRule.pairingWindow` of each other and
    /// simultaneous (RideRules' `TouchPairing`).
    case mutual
    /// The passenger's proof alone (driver hardware that cannot scan).
    case passenger
}

/// What the stores write about touch proofs. The rules themselves (pairing, simultaneity, the
/// resend rule) are RideRules' `TouchPairing`; the stores' SQL takes its bounds from there.
public enum TouchProofRules {}

/// A touch proof the server has already verified against the ride key, ready to be recorded.
/// `observedAt` and the observation window `observedFrom...observedUntil` are the client's
/// claims; `receivedAt` the server's clock. The mutual policy pairs proofs received within
/// `pairingWindow` whose windows are simultaneous (`MutualTouchRule`).
public struct VerifiedTouchProof: Codable, Equatable, Sendable {
    public var rideID: String
    public var side: TouchSide
    public var accountID: String
    public var slot: Int64
    public var uuid: UUID
    public var major: Int
    public var minor: Int
    public var peakRssiDbm: Double
    public var samples: Int
    public var observedAt: Date
    public var receivedAt: Date
    public var observedFrom: Date
    public var observedUntil: Date

    /// Without a window, the window is the instant `observedAt`.
    public init(rideID: String, side: TouchSide, accountID: String, slot: Int64, uuid: UUID, major: Int, minor: Int,
                peakRssiDbm: Double, samples: Int, observedAt: Date, receivedAt: Date,
                observedFrom: Date? = nil, observedUntil: Date? = nil) {
        self.rideID = rideID
        self.side = side
        self.accountID = accountID
        self.slot = slot
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.peakRssiDbm = peakRssiDbm
        self.samples = samples
        // Both databases keep milliseconds; the replay check compares stored values.
        self.observedAt = observedAt.wholeMillisecondsDown
        self.receivedAt = receivedAt.wholeMillisecondsDown
        self.observedFrom = (observedFrom ?? observedAt).wholeMillisecondsDown
        self.observedUntil = (observedUntil ?? observedAt).wholeMillisecondsDown
    }

    /// The record of a wire proof (RideWire's `TouchProof`) the server has verified: the ride,
    /// side, account and receive time are the server's; `uuid` and the times as the verifier
    /// parsed them from the proof's fields; the rest as sent.
    public init(verified proof: TouchProof, uuid: UUID, rideID: String, side: TouchSide, accountID: String,
                observedAt: Date, window: (from: Date, until: Date), receivedAt: Date) {
        self.init(rideID: rideID, side: side, accountID: accountID, slot: proof.slot, uuid: uuid, major: proof.major,
                  minor: proof.minor, peakRssiDbm: proof.peakRssiDbm, samples: proof.samples, observedAt: observedAt,
                  receivedAt: receivedAt, observedFrom: window.from, observedUntil: window.until)
    }

    /// How this proof appears in the ride's history when it does not confirm the ride.
    public var touchObserved: TouchObserved { TouchObserved(side: side, from: observedFrom, until: observedUntil) }

    /// The resend rule (RideRules' `TouchPairing.isResend`): an accepted proof of the same side
    /// and slot whose observation ends at or after this instant makes this one a resend.
    var resentSince: Date { TouchPairing.resentSince(until: observedUntil) }

    /// `replayed`'s message for a resend.
    var resentRefusal: String {
        "the \(side.rawValue)'s proof for slot \(slot) adds nothing to an accepted one (its observation ends within \(Int(TouchProof.resentTolerance)) s of that one's)"
    }
}

/// What recording a proof did: the ride afterwards, and whether this proof confirmed it.
public struct TouchProofRecording: Codable, Equatable, Sendable {
    public var ride: RideRecord
    public var confirmed: Bool
    /// Not confirmed although the counterpart's proof is in (mutual policy): no counterpart
    /// proof's window is simultaneous with this one's. Optional: results stored by older
    /// servers (idempotency) have no such field.
    public var notSimultaneous: Bool?

    public init(ride: RideRecord, confirmed: Bool, notSimultaneous: Bool = false) {
        self.ride = ride
        self.confirmed = confirmed
        self.notSimultaneous = notSimultaneous ? true : nil
    }
}

/// What the mutual policy found among the counterpart's proofs received within the pairing window.
enum CounterpartProofs {
    case none, notSimultaneous, simultaneous
}

extension Date {
    var wholeMillisecondsDown: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}
