// Request bodies, one per operation that takes input. Field names and limits are in openapi.yaml.
// (The touch proof's body lives with its route in RideServer.)

/// For POSTs that take no input: an empty body or `{}`.
public struct EmptyBody: StrictBody {
    public static let fields: Set<String> = []
    public static var emptyBodyAllowed: Bool { true }
}

public struct NewRideRequestBody: StrictBody {
    public static let fields: Set<String> = ["passengerName", "pickup", "dropoff", "accessibilityNotes"]
    /// Absent: the account's display name.
    public var passengerName: String?
    public var pickup: String
    public var dropoff: String
    public var accessibilityNotes: String?

    public func validate() throws {
        try FieldRules.optionalText(passengerName, field: "passengerName", maxLength: BodyLimits.maxNameLength)
        try FieldRules.text(pickup, field: "pickup", maxLength: BodyLimits.maxTextLength)
        try FieldRules.text(dropoff, field: "dropoff", maxLength: BodyLimits.maxTextLength)
        try FieldRules.optionalText(accessibilityNotes, field: "accessibilityNotes", maxLength: BodyLimits.maxTextLength, multiline: true)
    }
}

public struct NewAccountBody: StrictBody {
    public static let fields: Set<String> = ["role", "displayName", "vehicle"]
    /// The store's roles by name (RideServerTests checks they stay equal to `Role.allCases`).
    public static let roles = ["passenger", "driver", "dispatcher", "admin"]
    /// Decoded as text so a bad value gets a message listing the roles.
    public var role: String
    public var displayName: String
    public var vehicle: String?

    public func validate() throws {
        guard Self.roles.contains(role) else {
            throw BodyError.invalidField("role", "must be one of \(Self.roles.joined(separator: ", "))")
        }
        try FieldRules.text(displayName, field: "displayName", maxLength: BodyLimits.maxNameLength)
        try FieldRules.optionalText(vehicle, field: "vehicle", maxLength: BodyLimits.maxNameLength)
        if vehicle != nil && role != "driver" {
            throw BodyError.invalidField("vehicle", "only drivers have a vehicle")
        }
    }
}

/// Optional expiry for a new token; without it the token lasts until revoked.
public struct IssueTokenBody: StrictBody {
    public static let fields: Set<String> = ["expiresInDays"]
    public static var emptyBodyAllowed: Bool { true }
    public static let days = 1...3650
    public var expiresInDays: Int?

    public func validate() throws {
        if let days = expiresInDays, !Self.days.contains(days) {
            throw BodyError.invalidField("expiresInDays", "must be \(Self.days.lowerBound)...\(Self.days.upperBound)")
        }
    }
}

public struct CancelBody: StrictBody {
    public static let fields: Set<String> = ["reason"]
    public static var emptyBodyAllowed: Bool { true }
    public var reason: String?

    public func validate() throws {
        try FieldRules.optionalText(reason, field: "reason", maxLength: BodyLimits.maxTextLength, multiline: true)
    }
}
