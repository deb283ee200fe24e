import Foundation

public struct NewAccount: Sendable {
    public var role: Role
    public var displayName: String
    public var vehicle: String?

    public init(role: Role, displayName: String, vehicle: String? = nil) {
        self.role = role
        self.displayName = displayName
        self.vehicle = vehicle
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
}
