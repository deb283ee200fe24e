import Foundation

/// The server's answer to an accepted touch proof (openapi.yaml `TouchProofResult`).
public struct TouchProofResult: Sendable, Equatable, Codable {
    /// Whether this proof completed what the deployment's policy needs.
    public enum Outcome: String, Sendable, Codable {
        /// The ride is now `confirmed`.
        case confirmed
        /// The other side's proof (within the policy's window) is still missing.
        case awaitingCounterpart = "awaiting_counterpart"
        /// The other side's proof is in, but its observation window does not meet this one's
        /// (within `MutualTouchRule.tolerance`): the two devices did not feel the same touch.
        /// The proof is kept; a later proof of either side whose window meets it confirms.
        case touchNotSimultaneous = "touch_not_simultaneous"
    }

    /// Confirmed, or waiting for the counterpart.
    public var outcome: Outcome
    /// Whose proof this was.
    public var side: TouchSide
    /// The ride afterwards, as the caller may see it.
    public var ride: Ride

    /// A result with every field given.
    public init(outcome: Outcome, side: TouchSide, ride: Ride) {
        self.outcome = outcome
        self.side = side
        self.ride = ride
    }
}

/// A touch proof (`POST /v1/rides/{id}/touch-proofs`, openapi.yaml `TouchProof`): what one side
/// saw of its counterpart's beacon at touch range. The one model of a proof on the wire: the
/// client sends it, the server decodes it (strictly, refusing each malformed field by name) and
/// records what it verified. Plain values, so a bad field is named rather than undecodable.
///
/// A side's session builds it from what its core saw (`TouchProof(observation)` in RideSession):
///
/// ```swift
/// let proof = TouchProof(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 1, minor: 2, slot: 56_666_667,
///                        peakRssiDbm: -38.5, samples: 12, observedAt: "2026-11-26T08:00:01.250Z")
/// ```
public struct TouchProof: Sendable, Equatable, Codable {
    /// The counterpart's observed proximity UUID, 8-4-4-4-12 hex digits.
    public var uuid: String
    /// The observed major, `TouchProof.componentRange`.
    public var major: Int
    /// The observed minor, `TouchProof.componentRange`.
    public var minor: Int
    /// The identity's slot, floor((unix seconds − the ride's offset) / period) (`RotatingIdentity.slot(at:)`).
    public var slot: Int64
    /// Peak filtered RSSI while touching, dBm (`TouchProof.peakRssiRange`).
    public var peakRssiDbm: Double
    /// Advertisements the decision rests on (`TouchProof.samplesRange`).
    public var samples: Int
    /// When the touch was seen, RFC 3339 (`WireDates`).
    public var observedAt: String
    /// When this side's signal reached the touch level, RFC 3339; given with `observedUntil`
    /// or not at all (then the window is the instant `observedAt`).
    public var observedFrom: String?
    /// The last touching advertisement, RFC 3339; `observedFrom <= observedAt <= observedUntil`.
    public var observedUntil: String?

    /// A proof with every field given.
    public init(uuid: String, major: Int, minor: Int, slot: Int64, peakRssiDbm: Double, samples: Int, observedAt: String,
                observedFrom: String? = nil, observedUntil: String? = nil) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.slot = slot
        self.peakRssiDbm = peakRssiDbm
        self.samples = samples
        self.observedAt = observedAt
        self.observedFrom = observedFrom
        self.observedUntil = observedUntil
    }

    /// A proof from typed values, as a client sends it: the peak clamped to `peakRssiRange` in
    /// whole tenths (the server's range check needs no more), the times in `WireDates`' format,
    /// and the window `observedFrom...observedAt` clamped to `MutualTouchRule.clientWindow` so a
    /// long-held touch stays within what the server takes. Without `observedFrom` the window is
    /// the instant `observedAt`.
    public init(uuid: UUID, major: UInt16, minor: UInt16, slot: UInt64, peakRssiDbm: Double, samples: Int,
                observedAt: Date, observedFrom: Date? = nil) {
        let range = Self.peakRssiRange
        self.init(uuid: uuid.uuidString, major: Int(major), minor: Int(minor), slot: Int64(clamping: slot),
                  peakRssiDbm: (min(range.upperBound, max(range.lowerBound, peakRssiDbm)) * 10).rounded() / 10,
                  samples: samples, observedAt: WireDates.format(observedAt),
                  observedFrom: observedFrom.map {
                      WireDates.format(max(min($0, observedAt), observedAt - MutualTouchRule.clientWindow))
                  },
                  observedUntil: observedFrom.map { _ in WireDates.format(observedAt) })
    }
}

extension TouchProof {
    /// The range of `major` and `minor` (iBeacon's 16-bit fields).
    public static let componentRange = 0...65535
    /// The range the server takes for `peakRssiDbm`, dBm.
    public static let peakRssiRange = -127.0...20.0
    /// The range the server takes for `samples`.
    public static let samplesRange = 1...100_000
    /// A proof describes a touch that just happened: the server refuses one observed longer ago
    /// than this (`stale_proof`), s. Clients re-prove within it (the driver: `DriverCore.freshness`).
    public static let maximumAge: Double = 10
    /// How far a device's clock may run ahead of the server's before its proof is refused, s.
    public static let maximumAhead: Double = 2
    /// A second proof of the same side and slot is new only when its observation ends more
    /// than this after every accepted one's (else `replayed_proof`), s: re-proving an ongoing
    /// touch must extend the window by more (`DriverCore.resendInterval` does).
    public static let resentTolerance: Double = 1
}

/// The mutual touch rule (issue 12, "both sides feel it"): a touch counts only when the
/// passenger's and the driver's devices each saw the other's signal at the touch level at the
/// same time. Each side reports when (its observation window); two windows are simultaneous
/// when they overlap, or miss each other by at most `tolerance` (the two filters settle on a
/// step at slightly different moments). These are the contract's numbers; the rule that reads
/// them is RideRules' `TouchPairing`.
public enum MutualTouchRule {
    /// How far apart two observation windows may be and still be one touch, s.
    public static let tolerance: Double = 1
    /// The longest observation window a proof may claim, s: a window is what one touch was
    /// felt over, and a long one would meet almost any other.
    public static let maximumWindow: Double = 60
    /// What clients claim at most (a margin below `maximumWindow`).
    public static let clientWindow: Double = 30
    /// Mutual policy: how far apart (the server's receive times) the two sides' proofs may be
    /// and still confirm the ride together, s. A side still touching re-proves within it
    /// (`DriverCore.resendInterval`); the simulator's `MutualProofPolicy` pairs with it too
    /// (`TouchPairing`).
    public static let pairingWindow: Double = 10
}
