import BeaconCore
import Foundation
import RideWire

// What the roles add to the wire types (RideWire): the ride key as bytes, pages, and the
// outcome of submitting a touch proof (RideWire's `TouchProof`, which RideSession builds from
// what a side saw). Decoding is lenient about fields it does not know, so a newer server does
// not break an older client.

extension Ride {
    /// The key and period that root this ride's rotating beacon identity, when the caller was given them.
    public var rideKey: RideKey? {
        guard let key, let bytes = Data(base64Encoded: key), bytes.count == RotatingIdentity.keyLength else { return nil }
        return RideKey(bytes: Array(bytes), periodSeconds: identityPeriodSeconds)
    }
}

/// A ride's secret key and the slot period its identities rotate with.
public struct RideKey: Sendable, Equatable {
    public var bytes: [UInt8]
    /// nil when the server did not say (servers before touch-proof verification): use the
    /// deployment's configured period, by default `RotatingIdentity.defaultPeriod`.
    public var periodSeconds: Int?

    public init(bytes: [UInt8], periodSeconds: Int?) {
        self.bytes = bytes
        self.periodSeconds = periodSeconds
    }

    /// The rotating identity, with the server's period, else `fallbackPeriod`.
    public func identity(fallbackPeriod: Int = RotatingIdentity.defaultPeriod) throws(RotatingIdentity.Error) -> RotatingIdentity {
        try RotatingIdentity(rideKey: bytes, period: periodSeconds ?? fallbackPeriod)
    }
}

/// One page of a keyset-paged list; pass `nextAfter` as `after` for the next one.
public struct Page<Item: Sendable & Equatable>: Sendable, Equatable {
    public var items: [Item]
    /// nil on the last page.
    public var nextAfter: String?
}

/// The server's answer to a touch proof.
public enum TouchProofOutcome: Sendable, Equatable {
    /// Accepted; the ride is `confirmed` if this completed what the deployment's policy needs.
    case accepted(TouchProofResult)
    /// A server without touch-proof verification (501 `not_implemented`): the proof was
    /// well-formed but nothing changed. The ride can still be confirmed by an operator.
    case notVerified(message: String)
}

/// RFC 3339 UTC with milliseconds, as the server writes and reads timestamps (RideWire).
enum APIDates {
    static func format(_ date: Date) -> String { WireDates.format(date) }
    static let decoder = WireDates.makeDecoder()
}
