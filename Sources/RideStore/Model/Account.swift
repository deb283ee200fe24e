import Foundation

public struct NewAccount: Sendable {
    public var role: Role
    public var displayName: String
    /// The vehicle as people read it: the text given, or the structured vehicle's summary.
    public var vehicle: String?
    /// The car's parts: given, or split from the text (`Vehicle(parsing:)`) when it can be.
    public var vehicleDetails: Vehicle?

    /// Free text is split best effort, like the stores' migrations split today's text; text
    /// that cannot be split is kept as it is, with no details.
    public init(role: Role, displayName: String, vehicle: String? = nil) {
        self.role = role
        self.displayName = displayName
        self.vehicle = vehicle
        self.vehicleDetails = vehicle.flatMap(Vehicle.init(parsing:))
    }

    /// A driver whose car is known part by part.
    public init(role: Role, displayName: String, vehicleDetails: Vehicle?) {
        self.role = role
        self.displayName = displayName
        self.vehicle = vehicleDetails?.summary
        self.vehicleDetails = vehicleDetails
    }
}

/// An API token as stored: only the SHA-256 of the secret is kept, so a database leak
/// does not hand out working credentials.
public struct APIToken: Codable, Equatable, Sendable {
    public var id: String
    public var accountID: String
    public var createdAt: Date
    public var revokedAt: Date?
    /// After this the token is refused exactly like a revoked one; nil: never expires.
    public var expiresAt: Date?
    /// What its holder called the device at sign-in ("Ana's phone", "Firefox on Linux"), so a
    /// list of tokens says which is which; nil for tokens made before names (or by an admin).
    public var deviceName: String? = nil

    /// A token's first characters: enough to tell a person's few tokens apart, short enough to
    /// read out and type (`tokens revoke 3f9a1c`).
    public var handle: String { String(id.prefix(APIToken.handleLength)) }
    public static let handleLength = 6
}
