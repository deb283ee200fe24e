import Foundation

/// A one-time sign-in code: eight digits, read out as two groups of four ("4821 0937"),
/// easier to type or say than a 43-character token. Valid 24 hours, used once.
/// ```swift
/// SignInCodeText.normalized("4821-0937")  // "48210937"
/// ```
public enum SignInCodeText {
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
    public var accountID: String
    public var expiresAt: Date

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
    public var tokenID: String
    public var account: Account

    public init(token: String, tokenID: String, account: Account) {
        self.token = token
        self.tokenID = tokenID
        self.account = account
    }

    enum CodingKeys: String, CodingKey { case token, tokenID = "tokenId", account }
}

/// One of the caller's tokens (never its secret).
public struct TokenInfo: Sendable, Equatable, Codable {
    public var id: String
    public var createdAt: Date
    public var revokedAt: Date?
    public var expiresAt: Date?
    /// True for the token this request was made with.
    public var current: Bool
    /// The device it was signed in on ("Ana's phone", "Firefox on Linux"); nil when none was named.
    public var deviceName: String?

    /// The id's first six characters: what `tokens list` shows and `tokens revoke` accepts.
    public var handle: String { String(id.prefix(6)) }

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
    public var tokens: [TokenInfo]
    public init(tokens: [TokenInfo]) { self.tokens = tokens }
}

/// A named address kept with the account ("home" → "Main St 1").
public struct SavedPlace: Sendable, Equatable, Codable {
    public var name: String
    public var address: String

    public init(name: String, address: String) {
        self.name = name
        self.address = address
    }
}

/// The caller's saved places, by name (`GET /v1/places`).
public struct SavedPlaceList: Sendable, Equatable, Codable {
    public var places: [SavedPlace]
    public init(places: [SavedPlace]) { self.places = places }
}

/// How a driver's ETA reads in a ride's history, and so on the passenger's event stream: an
/// `accepted` event whose detail is "ETA 7 minutes".
public enum ETAText {
    public static func detail(minutes: Int) -> String {
        minutes == 1 ? "ETA 1 minute" : "ETA \(minutes) minutes"
    }

    /// The minutes in such a detail; nil for any other detail.
    public static func minutes(fromDetail detail: String) -> Int? {
        guard detail.hasPrefix("ETA ") else { return nil }
        return Int(detail.dropFirst(4).split(separator: " ").first ?? "")
    }
}
