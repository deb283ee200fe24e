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
