import Foundation

/// The server's answer to an accepted touch proof (openapi.yaml `TouchProofResult`).
public struct TouchProofResult: Sendable, Equatable, Codable {
    /// Whether this proof completed what the deployment's policy needs.
    public enum Outcome: String, Sendable, Codable {
        /// The ride is now `confirmed`.
        case confirmed
        /// The other side's proof (within the policy's window) is still missing.
        case awaitingCounterpart = "awaiting_counterpart"
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

    /// A proof with every field given.
    public init(uuid: String, major: Int, minor: Int, slot: Int64, peakRssiDbm: Double, samples: Int, observedAt: String) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.slot = slot
        self.peakRssiDbm = peakRssiDbm
        self.samples = samples
        self.observedAt = observedAt
    }
}
