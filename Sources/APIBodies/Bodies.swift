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
    public static let fields: Set<String> = ["role", "displayName", "vehicle", "vehicleColour", "vehicleMake", "vehicleModel", "vehiclePlate"]
    /// The store's roles by name (RideServerTests checks they stay equal to `Role.allCases`).
    public static let roles = ["passenger", "driver", "dispatcher", "admin"]
    /// Decoded as text so a bad value gets a message listing the roles.
    public var role: String
    public var displayName: String
    /// Free text ("blue Toyota Prius"), split best effort; or the parts below, not both.
    public var vehicle: String?
    /// The car part by part: `vehicleModel` is needed when any part is given.
    public var vehicleColour: String?
    public var vehicleMake: String?
    public var vehicleModel: String?
    /// 1 to 12 letters, digits, spaces and hyphens ("AB12 CDE").
    public var vehiclePlate: String?

    public static let maxVehiclePartLength = 40

    /// True when the body gives the car part by part.
    public var hasVehicleParts: Bool { [vehicleColour, vehicleMake, vehicleModel, vehiclePlate].contains { $0 != nil } }

    public func validate() throws {
        guard Self.roles.contains(role) else {
            throw BodyError.invalidField("role", "must be one of \(Self.roles.joined(separator: ", "))")
        }
        try FieldRules.text(displayName, field: "displayName", maxLength: BodyLimits.maxNameLength)
        try FieldRules.optionalText(vehicle, field: "vehicle", maxLength: BodyLimits.maxNameLength)
        for (field, value) in [("vehicleColour", vehicleColour), ("vehicleMake", vehicleMake), ("vehicleModel", vehicleModel)] {
            try FieldRules.optionalText(value, field: field, maxLength: Self.maxVehiclePartLength)
        }
        if let vehiclePlate, !Self.isPlate(vehiclePlate) {
            throw BodyError.invalidField("vehiclePlate", "must be 1 to 12 letters, digits, spaces and hyphens")
        }
        if vehicle != nil && hasVehicleParts {
            throw BodyError.invalidField("vehicle", "give the vehicle as text or as parts (vehicleMake, vehicleModel, …), not both")
        }
        if hasVehicleParts && vehicleModel == nil {
            throw BodyError.invalidField("vehicleModel", "is needed with the other vehicle parts")
        }
        if (vehicle != nil || hasVehicleParts) && role != "driver" {
            throw BodyError.invalidField(vehicle != nil ? "vehicle" : "vehicleModel", "only drivers have a vehicle")
        }
    }

    /// The plate rule (RideWire's `Vehicle.isValidPlate`, restated here: this module stands
    /// alone): 1 to 12 ASCII letters, digits, spaces and hyphens, starting and ending with a
    /// letter or digit (openapi.yaml's pattern).
    public static func isPlate(_ plate: String) -> Bool {
        let scalars = Array(plate.unicodeScalars)
        let letterOrDigit: (Unicode.Scalar) -> Bool = { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        guard (1...12).contains(scalars.count), let first = scalars.first, let last = scalars.last,
              letterOrDigit(first), letterOrDigit(last) else { return false }
        return scalars.allSatisfy { letterOrDigit($0) || $0 == " " || $0 == "-" }
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

/// A passenger's message to her driver (`POST /v1/rides/{id}/messages`): one of the presets
/// by name, or her own words on one line; exactly one of the two.
public struct PassengerMessageBody: StrictBody {
    public static let fields: Set<String> = ["preset", "text"]
    /// RideWire's `MessagePreset` raw values (RideServerTests keeps them equal).
    public static let presets = ["at_main_entrance", "guide_dog", "hard_of_hearing", "waiting_outside", "need_more_time",
                                 "please_call_out", "wheelchair"]
    /// RideWire's `PassengerMessage.maxTextLength`.
    public static let maxTextLength = 160
    public var preset: String?
    public var text: String?

    public func validate() throws {
        switch (preset, text) {
        case (nil, nil): throw BodyError.invalidField("text", "give a preset or a text")
        case (.some, .some): throw BodyError.invalidField("text", "give a preset or a text, not both")
        case (let preset?, nil):
            guard Self.presets.contains(preset) else {
                throw BodyError.invalidField("preset", "must be one of \(Self.presets.joined(separator: ", "))")
            }
        case (nil, let text?):
            try FieldRules.text(text, field: "text", maxLength: Self.maxTextLength)
        }
    }
}
