import Foundation

/// Which proofs confirm a ride, chosen per deployment.
public enum TouchPolicy: String, Codable, Sendable, CaseIterable {
    /// Both sides' proofs, received within `TouchProofRules.pairingWindow` of each other.
    case mutual
    /// The passenger's proof alone (driver hardware that cannot scan).
    case passenger
}

public enum TouchProofRules {
    /// Mutual policy: how far apart (server receive times) the two sides' proofs may be.
    public static let pairingWindow: TimeInterval = 10
}

/// A touch proof the server has already verified against the ride key, ready to be recorded.
/// `observedAt` is the client's claim; `receivedAt` the server's clock, which pairs proofs.
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

    public init(rideID: String, side: TouchSide, accountID: String, slot: Int64, uuid: UUID, major: Int, minor: Int,
                peakRssiDbm: Double, samples: Int, observedAt: Date, receivedAt: Date) {
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
    }
}

/// What recording a proof did: the ride afterwards, and whether this proof confirmed it.
public struct TouchProofRecording: Codable, Equatable, Sendable {
    public var ride: RideRecord
    public var confirmed: Bool

    public init(ride: RideRecord, confirmed: Bool) {
        self.ride = ride
        self.confirmed = confirmed
    }
}

extension Date {
    var wholeMillisecondsDown: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}
