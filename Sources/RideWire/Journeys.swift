import Foundation

/// A one-time sign-in code: eight digits, read out as two groups of four ("4821 0937"),
/// easier to type or say than a 43-character token. Valid 24 hours, used once.
/// ```swift
/// SignInCodeText.normalized("4821-0937")  // "48210937"
/// ```
public enum SignInCodeText {
    /// How many digits a code has.
    public static let digits = 8
    /// How long a code works after it is issued.
    public static let lifetime: TimeInterval = 24 * 3600

    /// A fresh random code.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }

    /// The code's digits, spaces and hyphens dropped; nil unless exactly eight digits remain.
    public static func normalized(_ text: String) -> String? {
        let compact = text.filter { $0 != " " && $0 != "-" }
        guard compact.count == digits, compact.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return compact
    }

    /// "4821 0937": two groups, so it is read (and spoken) as two short numbers.
    public static func grouped(_ code: String) -> String {
        String(code.prefix(4)) + " " + String(code.dropFirst(4))
    }
}

/// A sign-in code just issued (`POST /v1/accounts/{id}/sign-in-codes`): the one time it is shown.
public struct IssuedSignInCode: Sendable, Equatable, Codable {
    /// Eight digits, grouped "1234 5678".
    public var code: String
    /// The account the code signs in as.
    public var accountID: String
    /// After this the code is refused (`sign_in_code_expired`).
    public var expiresAt: Date

    /// The answer as the server builds it when it issues a code.
    public init(code: String, accountID: String, expiresAt: Date) {
        self.code = code
        self.accountID = accountID
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey { case code, accountID = "accountId", expiresAt }
}

/// What `POST /v1/sign-in` returns for a good code: a new token and who it acts as.
public struct SignedIn: Sendable, Equatable, Codable {
    /// The secret to send as `Authorization: Bearer …`; shown once.
    public var token: String
    /// The new token's id (to revoke it later, `DELETE /v1/tokens/{id}`).
    public var tokenID: String
    /// Who the token acts as.
    public var account: Account

    /// The answer to a good code.
    public init(token: String, tokenID: String, account: Account) {
        self.token = token
        self.tokenID = tokenID
        self.account = account
    }

    enum CodingKeys: String, CodingKey { case token, tokenID = "tokenId", account }
}

/// One of the caller's tokens (never its secret).
public struct TokenInfo: Sendable, Equatable, Codable {
    /// The token's id (never its secret).
    public var id: String
    /// When the token was issued.
    public var createdAt: Date
    /// When it was revoked; nil while it works.
    public var revokedAt: Date?
    /// When it stops working by itself; nil for a token without expiry.
    public var expiresAt: Date?
    /// True for the token this request was made with.
    public var current: Bool
    /// The device it was signed in on ("Ana's phone", "Firefox on Linux"); nil when none was named.
    public var deviceName: String?

    /// The id's first six characters: what `tokens list` shows and `tokens revoke` accepts.
    public var handle: String { String(id.prefix(6)) }

    /// A token as `GET /v1/tokens` lists it.
    public init(id: String, createdAt: Date, revokedAt: Date?, expiresAt: Date?, current: Bool, deviceName: String? = nil) {
        self.id = id
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.expiresAt = expiresAt
        self.current = current
        self.deviceName = deviceName
    }
}

/// The caller's tokens, newest first (`GET /v1/tokens`).
public struct TokenList: Sendable, Equatable, Codable {
    /// Newest first.
    public var tokens: [TokenInfo]
    /// The list as the server sends it.
    public init(tokens: [TokenInfo]) { self.tokens = tokens }
}

/// A named address kept with the account ("home" → "Main St 1").
public struct SavedPlace: Sendable, Equatable, Codable {
    /// What the passenger calls it ("home"); unique per account.
    public var name: String
    /// The address a ride request uses for it.
    public var address: String

    /// A place called `name` at `address`.
    public init(name: String, address: String) {
        self.name = name
        self.address = address
    }
}

/// The caller's saved places, by name (`GET /v1/places`).
public struct SavedPlaceList: Sendable, Equatable, Codable {
    /// Sorted by name.
    public var places: [SavedPlace]
    /// The list as the server sends it.
    public init(places: [SavedPlace]) { self.places = places }
}

/// How a driver's ETA reads in a ride's history, and so on the passenger's event stream: an
/// `accepted` event whose detail is "ETA 7 minutes".
public enum ETAText {
    /// The history's detail for an ETA of `minutes`:
    ///
    /// ```swift
    /// ETAText.detail(minutes: 7)   // "ETA 7 minutes"
    /// ```
    public static func detail(minutes: Int) -> String {
        minutes == 1 ? "ETA 1 minute" : "ETA \(minutes) minutes"
    }

    /// The minutes in such a detail; nil for any other detail.
    public static func minutes(fromDetail detail: String) -> Int? {
        guard detail.hasPrefix("ETA ") else { return nil }
        return Int(detail.dropFirst(4).split(separator: " ").first ?? "")
    }
}
