import Foundation

/// `GET /v1/rides/{id}/positions`: both parties' latest positions as a dispatcher sees them,
/// coarse (openapi.yaml `CoarsePositions`: latitude and longitude rounded to
/// `coarseDegrees`, accuracy at least `coarseAccuracyMeters`, no course), never exact.
public struct RidePositions: Sendable, Equatable, Codable {
    /// Degrees a dispatcher's latitude and longitude are rounded to (≈ 1.1 km north–south).
    public static let coarseDegrees = 0.01
    /// The least accuracy radius a dispatcher is shown, m.
    public static let coarseAccuracyMeters = 1_000.0

    public var passenger: RidePosition?
    public var driver: RidePosition?

    public init(passenger: RidePosition?, driver: RidePosition?) {
        self.passenger = passenger
        self.driver = driver
    }

    private enum CodingKeys: String, CodingKey { case passenger, driver }

    /// A party without a position is `null`, not left out (openapi.yaml: required, nullable).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(passenger, forKey: .passenger)
        try container.encode(driver, forKey: .driver)
    }
}

extension RidePosition {
    /// What a dispatcher may see of it: rounded to `RidePositions.coarseDegrees`, accuracy at
    /// least `RidePositions.coarseAccuracyMeters`, without the course.
    public var coarse: RidePosition {
        // Divided by the step's reciprocal (100, exact in binary) rather than times 0.01 (not
        // exact), so 51.51 comes out as the double nearest 51.51.
        let perDegree = (1 / RidePositions.coarseDegrees).rounded()
        func rounded(_ degrees: Double) -> Double { (degrees * perDegree).rounded() / perDegree }
        return RidePosition(latitude: rounded(latitude), longitude: rounded(longitude),
                            accuracyMeters: max(accuracyMeters, RidePositions.coarseAccuracyMeters), courseDegrees: nil,
                            recordedAt: recordedAt)
    }
}
