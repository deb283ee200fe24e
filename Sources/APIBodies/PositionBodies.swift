// The body of a party's position during a ride's approach (issue 35).

/// `PUT /v1/rides/{id}/position`: the caller's latest satellite fix. `recordedAt` is checked as
/// text here (RFC 3339) and against the server's clock by the route.
public struct PositionBody: StrictBody {
    public static let fields: Set<String> = ["latitude", "longitude", "accuracyMeters", "courseDegrees", "recordedAt"]
    /// A device's reported 68 % radius past this is no fix worth guiding by (a cell-tower guess).
    public static let maxAccuracyMeters = 10_000.0
    public var latitude: Double
    public var longitude: Double
    public var accuracyMeters: Double
    public var courseDegrees: Double?
    public var recordedAt: String?

    public func validate() throws {
        guard (-90...90).contains(latitude) else { throw BodyError.invalidField("latitude", "must be -90...90 degrees") }
        guard (-180...180).contains(longitude) else { throw BodyError.invalidField("longitude", "must be -180...180 degrees") }
        guard accuracyMeters > 0, accuracyMeters <= Self.maxAccuracyMeters else {
            throw BodyError.invalidField("accuracyMeters", "must be more than 0 and at most \(Int(Self.maxAccuracyMeters)) m")
        }
        if let courseDegrees, !(courseDegrees >= 0 && courseDegrees < 360) {
            throw BodyError.invalidField("courseDegrees", "must be at least 0 and less than 360 degrees")
        }
        if let recordedAt, recordedAt.isEmpty || recordedAt.count > 64 {
            throw BodyError.invalidField("recordedAt", "must be an RFC 3339 date-time")
        }
    }
}
