import BeaconCore
import Foundation

// What the /v1 API returns (openapi.yaml, components/schemas), as the roles see it. Decoding is
// lenient about fields it does not know, so a newer server does not break an older client.

/// requested → accepted → arrived → confirmed → completed; cancelled from any state before completed.
public enum RideState: String, Sendable, Codable, CaseIterable {
    case requested, accepted, arrived, confirmed, completed, cancelled

    /// Nothing follows these: a client waiting on the ride can stop.
    public var isFinal: Bool { self == .completed || self == .cancelled }
}

public enum Role: String, Sendable, Codable, CaseIterable {
    case passenger, driver, dispatcher, admin
}

/// What a passenger asks for (`POST /v1/ride-requests`).
public struct NewRideRequest: Sendable, Equatable, Encodable {
    /// The name the driver calls out.
    public var passengerName: String
    public var pickup: String
    public var dropoff: String
    /// E.g. "guide dog", "please come to the door".
    public var accessibilityNotes: String?

    public init(passengerName: String, pickup: String, dropoff: String, accessibilityNotes: String? = nil) {
        self.passengerName = passengerName
        self.pickup = pickup
        self.dropoff = dropoff
        self.accessibilityNotes = accessibilityNotes
    }
}

public struct RideRequest: Sendable, Equatable, Decodable {
    public enum Status: String, Sendable, Codable { case open, accepted, cancelled }

    public var id: String
    /// Absent in drivers' and dispatchers' view of open requests.
    public var passengerId: String?
    public var passengerName: String
    public var pickup: String
    public var dropoff: String
    public var accessibilityNotes: String?
    public var status: Status
    public var createdAt: Date
    /// The ride, once a driver accepted.
    public var rideId: String?
}

public struct RideParty: Sendable, Equatable, Decodable {
    public var name: String
    /// Drivers only, when their account has one ("blue Toyota Prius").
    public var vehicle: String?
}

public struct Ride: Sendable, Equatable, Decodable {
    public var id: String
    public var requestId: String
    public var passengerId: String
    public var driverId: String
    public var passenger: RideParty
    public var driver: RideParty
    public var state: RideState
    public var createdAt: Date
    public var stateChangedAt: Date
    /// Base64 of the 32-byte ride key; only in responses to the ride's driver and passenger.
    public var key: String?
    /// The deployment's identity slot period; sent with `key` by servers that verify touch proofs.
    public var identityPeriodSeconds: Int?

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

/// One change in a ride's (or ride request's) history: the `data` of a server-sent event.
public struct RideEvent: Sendable, Equatable, Decodable {
    /// Global and increasing: the resume point.
    public var id: Int64
    public var requestId: String
    /// Absent on `requested`, and on `cancelled` when the request was withdrawn before a driver accepted.
    public var rideId: String?
    /// Position in the request's history, without gaps.
    public var sequence: Int
    public var state: RideState
    /// The account that caused the change ("operator" for admin CLI overrides).
    public var actorId: String
    public var at: Date
    /// E.g. a cancellation's reason.
    public var detail: String?
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

    public init(identity: BeaconIdentity, slot: UInt64, peakRSSI: Double, samples: Int, observedAt: Date) {
        self.identity = identity
        self.slot = slot
        self.peakRSSI = peakRSSI
        self.samples = samples
        self.observedAt = observedAt
    }

    private enum Keys: String, CodingKey { case uuid, major, minor, slot, peakRssiDbm, samples, observedAt }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(identity.uuid.uuidString, forKey: .uuid)
        try container.encode(Int(identity.major), forKey: .major)
        try container.encode(Int(identity.minor), forKey: .minor)
        try container.encode(slot, forKey: .slot)
        // Whole tenths: the server's range check does not need more, and the body stays short.
        try container.encode((min(20, max(-127, peakRSSI)) * 10).rounded() / 10, forKey: .peakRssiDbm)
        try container.encode(samples, forKey: .samples)
        try container.encode(APIDates.format(observedAt), forKey: .observedAt)
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

public struct TouchProofResult: Sendable, Equatable, Decodable {
    public enum Outcome: String, Sendable, Codable {
        case confirmed
        /// The other side's proof (within the policy's window) is still missing.
        case awaitingCounterpart = "awaiting_counterpart"
    }

    public var outcome: Outcome
    /// Whose proof this was.
    public var side: BeaconSide
    public var ride: Ride
}

/// RFC 3339 UTC with milliseconds, as the server writes and reads timestamps.
enum APIDates {
    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func parse(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date-time: \(text)")
            }
            return date
        }
        return decoder
    }()
}
