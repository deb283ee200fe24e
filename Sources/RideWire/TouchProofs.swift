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

/// A touch proof as sent (`POST /v1/rides/{id}/touch-proofs`): what one side saw of its
/// counterpart's beacon at touch range (DESIGN.md, touch confirmation). Plain values, so the
/// server can refuse each malformed field by name.
public struct TouchProofBody: Sendable, Equatable, Codable {
    /// The counterpart's observed proximity UUID, 8-4-4-4-12 hex digits.
    public var uuid: String
    /// The observed major, 0...65535.
    public var major: Int
    /// The observed minor, 0...65535.
    public var minor: Int
    /// The identity's slot, floor(unix seconds / period).
    public var slot: Int64
    /// Peak filtered RSSI while touching, dBm (-127...20).
    public var peakRssiDbm: Double
    /// Advertisements the decision rests on (1...100000).
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
}

/// The mutual touch rule (issue 12, "both sides feel it"): a touch counts only when the
/// passenger's and the driver's devices each saw the other's signal at the touch level at the
/// same time. Each side reports when (its observation window); two windows are simultaneous
/// when they overlap, or miss each other by at most `tolerance` (the two filters settle on a
/// step at slightly different moments).
public enum MutualTouchRule {
    /// How far apart two observation windows may be and still be one touch, s.
    public static let tolerance: Double = 1
    /// The longest observation window a proof may claim, s: a window is what one touch was
    /// felt over, and a long one would meet almost any other.
    public static let maximumWindow: Double = 60
    /// What clients claim at most (a margin below `maximumWindow`).
    public static let clientWindow: Double = 30

    /// Whether the windows [from1, until1] and [from2, until2] (any one time unit, seconds) are
    /// one touch.
    public static func simultaneous(_ from1: Double, _ until1: Double, _ from2: Double, _ until2: Double) -> Bool {
        from1 <= until2 + tolerance && from2 <= until1 + tolerance
    }
}
