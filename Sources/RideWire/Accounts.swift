import Foundation

/// An account (openapi.yaml `Account`): a person or service with one role.
public struct Account: Sendable, Equatable, Codable {
    /// The account's id.
    public var id: String
    /// What the account may do.
    public var role: Role
    /// The name others see and hear.
    public var displayName: String
    /// What a passenger listens for ("blue Toyota Prius"); drivers only.
    public var vehicle: String?
    /// The car's colour, make, model and plate, when known; drivers only.
    public var vehicleDetails: Vehicle?
    /// When the account was created.
    public var createdAt: Date

    /// An account with every field given.
    public init(id: String, role: Role, displayName: String, vehicle: String?, vehicleDetails: Vehicle? = nil, createdAt: Date) {
        self.id = id
        self.role = role
        self.displayName = displayName
        self.vehicle = vehicle
        self.vehicleDetails = vehicleDetails
        self.createdAt = createdAt
    }
}

/// Every account (`GET /v1/accounts`, admins only).
public struct AccountList: Sendable, Equatable, Codable {
    /// The accounts, oldest first.
    public var accounts: [Account]

    /// A list of `accounts`.
    public init(accounts: [Account]) { self.accounts = accounts }
}

/// A token just issued: the one time its secret is shown.
public struct IssuedToken: Sendable, Equatable, Codable {
    /// The secret to send as `Authorization: Bearer …`.
    public var token: String
    /// The token's id (not secret), for revocation and audit.
    public var tokenID: String
    /// The account the token acts as.
    public var accountID: String
    /// When the token was issued.
    public var createdAt: Date
    /// After this the token is refused; nil: never expires.
    public var expiresAt: Date?

    /// An issued token with every field given.
    public init(token: String, tokenID: String, accountID: String, createdAt: Date, expiresAt: Date?) {
        self.token = token
        self.tokenID = tokenID
        self.accountID = accountID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case token, tokenID = "tokenId", accountID = "accountId", createdAt, expiresAt
    }
}

/// How many of an account's tokens a revocation ended.
public struct RevokedTokens: Sendable, Equatable, Codable {
    /// The account whose tokens were revoked.
    public var accountID: String
    /// Tokens revoked by this call (0 when all already were).
    public var revoked: Int

    /// A revocation's count.
    public init(accountID: String, revoked: Int) {
        self.accountID = accountID
        self.revoked = revoked
    }

    enum CodingKeys: String, CodingKey { case accountID = "accountId", revoked }
}
