import Foundation
import RideStore

// Request bodies, one per operation that takes input. Field names and limits are in openapi.yaml.

struct NewRideRequestBody: StrictBody {
    static let fields: Set<String> = ["passengerName", "pickup", "dropoff", "accessibilityNotes"]
    var passengerName: String
    var pickup: String
    var dropoff: String
    var accessibilityNotes: String?

    func validate() throws {
        try FieldRules.text(passengerName, field: "passengerName", maxLength: APILimits.maxNameLength)
        try FieldRules.text(pickup, field: "pickup", maxLength: APILimits.maxTextLength)
        try FieldRules.text(dropoff, field: "dropoff", maxLength: APILimits.maxTextLength)
        try FieldRules.optionalText(accessibilityNotes, field: "accessibilityNotes", maxLength: APILimits.maxTextLength, multiline: true)
    }

    var model: NewRideRequest {
        NewRideRequest(passengerName: passengerName, pickup: pickup, dropoff: dropoff, accessibilityNotes: accessibilityNotes)
    }
}

struct NewAccountBody: StrictBody {
    static let fields: Set<String> = ["role", "displayName", "vehicle"]
    /// Decoded as text so a bad value gets a message listing the roles.
    var role: String
    var displayName: String
    var vehicle: String?

    func validate() throws {
        guard let role = Role(rawValue: role) else {
            throw APIError.invalidField("role", "must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        try FieldRules.text(displayName, field: "displayName", maxLength: APILimits.maxNameLength)
        try FieldRules.optionalText(vehicle, field: "vehicle", maxLength: APILimits.maxNameLength)
        if vehicle != nil && role != .driver {
            throw APIError.invalidField("vehicle", "only drivers have a vehicle")
        }
    }

    var model: NewAccount? {
        Role(rawValue: role).map { NewAccount(role: $0, displayName: displayName, vehicle: vehicle) }
    }
}

/// Optional expiry for a new token; without it the token lasts until revoked.
struct IssueTokenBody: StrictBody {
    static let fields: Set<String> = ["expiresInDays"]
    static var emptyBodyAllowed: Bool { true }
    var expiresInDays: Int?

    func validate() throws {
        if let days = expiresInDays, !TokenExpiry.days.contains(days) {
            throw APIError.invalidField("expiresInDays", "must be \(TokenExpiry.days.lowerBound)...\(TokenExpiry.days.upperBound)")
        }
    }
}

public enum TokenExpiry {
    public static let days = 1...3650

    /// Whole milliseconds, like every time the store keeps.
    public static func date(afterDays days: Int, from now: Date = Date()) -> Date {
        Date(timeIntervalSince1970: ((now.timeIntervalSince1970 + Double(days) * 86_400) * 1000).rounded(.down) / 1000)
    }
}

struct CancelBody: StrictBody {
    static let fields: Set<String> = ["reason"]
    static var emptyBodyAllowed: Bool { true }
    var reason: String?

    func validate() throws {
        try FieldRules.optionalText(reason, field: "reason", maxLength: APILimits.maxTextLength, multiline: true)
    }
}

/// What one side saw of its counterpart's beacon at touch range (DESIGN.md, touch confirmation).
struct TouchProofBody: StrictBody {
    static let fields: Set<String> = ["uuid", "major", "minor", "slot", "peakRssiDbm", "samples", "observedAt"]
    var uuid: String
    var major: Int
    var minor: Int
    var slot: Int64
    var peakRssiDbm: Double
    var samples: Int
    var observedAt: String

    func validate() throws {
        guard UUID(uuidString: uuid) != nil else { throw APIError.invalidField("uuid", "must be a UUID like 8-4-4-4-12 hex digits") }
        guard (0...65535).contains(major) else { throw APIError.invalidField("major", "must be 0...65535") }
        guard (0...65535).contains(minor) else { throw APIError.invalidField("minor", "must be 0...65535") }
        guard slot >= 0 else { throw APIError.invalidField("slot", "must not be negative") }
        guard (-127...20).contains(peakRssiDbm) else { throw APIError.invalidField("peakRssiDbm", "must be -127...20 dBm") }
        guard (1...100_000).contains(samples) else { throw APIError.invalidField("samples", "must be 1...100000") }
        guard APIJSON.parseTimestamp(observedAt) != nil else {
            throw APIError.invalidField("observedAt", "must be an RFC 3339 date-time")
        }
    }
}
