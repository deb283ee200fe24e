import BeaconCore
import Foundation
import RideWire

// What the roles add to the wire types (RideWire): the ride key as bytes, pages, the touch
// proof built from a BeaconIdentity, and the outcome of submitting one. Decoding is lenient
// about fields it does not know, so a newer server does not break an older client.

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

/// What one side saw of its counterpart's beacon at touch range (DESIGN.md, touch confirmation).
public struct TouchProof: Sendable, Equatable, Encodable {
    /// The counterpart's identity as observed.
    public var identity: BeaconIdentity
    /// The identity's slot, floor(unix seconds / period).
    public var slot: UInt64
    /// Peak filtered RSSI while touching, dBm (-127 ... 20).
    public var peakRSSI: Double
    /// Advertisements the decision rests on (1 ... 100000).
    public var samples: Int
    public var observedAt: Date
    /// When this side's signal reached the touch level (the observation window's start); nil:
    /// the window is the instant `observedAt`, which also ends it.
    public var observedFrom: Date?

    public init(identity: BeaconIdentity, slot: UInt64, peakRSSI: Double, samples: Int, observedAt: Date, observedFrom: Date? = nil) {
        self.identity = identity
        self.slot = slot
        self.peakRSSI = peakRSSI
        self.samples = samples
        self.observedAt = observedAt
        self.observedFrom = observedFrom
    }

    /// The wire body (RideWire's `TouchProofBody`) this proof is sent as.
    public var body: TouchProofBody {
        // Whole tenths: the server's range check does not need more, and the body stays short.
        TouchProofBody(uuid: identity.uuid.uuidString, major: Int(identity.major), minor: Int(identity.minor),
                       slot: Int64(clamping: slot), peakRssiDbm: (min(20, max(-127, peakRSSI)) * 10).rounded() / 10,
                       samples: samples, observedAt: APIDates.format(observedAt),
                       // The window ends with the proof's observation; its start is clamped so
                       // a long-held touch stays within what the server takes.
                       observedFrom: observedFrom.map { APIDates.format(max(min($0, observedAt), observedAt - MutualTouchRule.clientWindow)) },
                       observedUntil: observedFrom.map { _ in APIDates.format(observedAt) })
    }

    public func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
    }
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
