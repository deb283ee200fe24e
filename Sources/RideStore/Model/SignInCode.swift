import Foundation

/// A one-time sign-in code as stored: only a keyed hash of the code is kept (HMAC-SHA256 under
/// the server's sign-in key, which lives outside the database), with
/// who issued it, when it stops working and when it was used.
public struct SignInCodeRecord: Codable, Equatable, Sendable {
    public var id: String
    public var accountID: String
    public var issuedBy: String
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?

    public init(id: String, accountID: String, issuedBy: String, createdAt: Date, expiresAt: Date, usedAt: Date? = nil) {
        self.id = id
        self.accountID = accountID
        self.issuedBy = issuedBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// Why a sign-in code was refused; each has its own API error code, and none changes anything.
public enum SignInRefusal: String, Sendable, Equatable {
    /// No code with that hash was ever issued (a typo, or a guess).
    case unknown
    /// Issued, but its 24 hours are over.
    case expired
    /// Already exchanged for a token.
    case used
}

/// A token made from a sign-in code, with the account it acts as.
public struct SignIn: Sendable, Equatable {
    public var account: Account
    public var token: APIToken
    /// The code's id and who issued it (the audit log names both).
    public var codeID: String
    public var issuedBy: String
}

/// A passenger's named address ("home" → "Main St 1"), kept with the account.
public struct SavedPlaceRecord: Codable, Equatable, Sendable {
    public var accountID: String
    public var name: String
    public var address: String
    public var createdAt: Date

    public init(accountID: String, name: String, address: String, createdAt: Date) {
        self.accountID = accountID
        self.name = name
        self.address = address
        self.createdAt = createdAt
    }
}
