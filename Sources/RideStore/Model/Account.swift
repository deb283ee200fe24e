import Foundation

public enum Role: String, Codable, Sendable, CaseIterable {
    case passenger, driver, dispatcher, admin
}

public struct Account: Codable, Equatable, Sendable {
    public var id: String
    public var role: Role
    public var displayName: String
    /// What a passenger listens for ("blue Toyota Prius"); drivers only.
    public var vehicle: String?
    public var createdAt: Date

    public init(id: String, role: Role, displayName: String, vehicle: String?, createdAt: Date) {
        self.id = id
        self.role = role
        self.displayName = displayName
        self.vehicle = vehicle
        self.createdAt = createdAt
    }
}

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
