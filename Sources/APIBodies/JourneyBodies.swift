// Bodies of the journeys' endpoints: sign-in, dispatcher assignment, ETA, saved places.

/// `POST /v1/sign-in`: the eight-digit code (spaces and hyphens allowed), and optionally what
/// to call the device the token will be on ("Ana's phone"), so a list of tokens tells them apart.
public struct SignInBody: StrictBody {
    public static let fields: Set<String> = ["code", "deviceName"]
    /// The longest device name kept.
    public static let maxDeviceNameLength = 100
    public var code: String
    public var deviceName: String?

    public func validate() throws {
        let digits = code.filter { $0 != " " && $0 != "-" }
        guard code.unicodeScalars.count <= 64, digits.count == 8, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw BodyError.invalidField("code", "must be the eight digits of a sign-in code, like 4821 0937")
        }
        try FieldRules.optionalText(deviceName, field: "deviceName", maxLength: Self.maxDeviceNameLength)
    }
}

/// `POST /v1/ride-requests/{id}/assign`: the driver a dispatcher gives the request to.
public struct AssignBody: StrictBody {
    public static let fields: Set<String> = ["driverId"]
    public var driverId: String

    public func validate() throws {
        try FieldRules.text(driverId, field: "driverId", maxLength: 64)
    }
}

/// `POST /v1/rides/{id}/eta`: minutes until the driver reaches the pickup.
public struct ETABody: StrictBody {
    public static let fields: Set<String> = ["minutes"]
    public static let range = 0...240
    public var minutes: Int

    public func validate() throws {
        guard Self.range.contains(minutes) else { throw BodyError.invalidField("minutes", "must be 0...240") }
    }
}

/// `POST /v1/places`: a named address for the caller.
public struct SavedPlaceBody: StrictBody {
    public static let fields: Set<String> = ["name", "address"]
    public static let maxNameLength = 40
    public var name: String
    public var address: String

    public func validate() throws {
        try FieldRules.text(name, field: "name", maxLength: Self.maxNameLength)
        guard !name.contains("/") else { throw BodyError.invalidField("name", "must not contain /") }
        try FieldRules.text(address, field: "address", maxLength: BodyLimits.maxTextLength)
    }
}
