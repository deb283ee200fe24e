import Foundation

/// A party's latest satellite position during a ride's approach (openapi.yaml `Position`), as
/// the server keeps it: the ride's other party sees it exactly, a dispatcher coarsely, nobody
/// else at all; it is deleted when the ride is confirmed, cancelled or completed (issue 35).
///
/// Written with `PUT /v1/rides/{id}/position` (body: latitude, longitude, accuracyMeters,
/// optional courseDegrees and recordedAt) by the ride's passenger or driver while the ride is
/// accepted or arrived; read with `GET /v1/rides/{id}/position/other` (the other party's, or
/// `{"position": null}`), and by dispatchers in `GET /v1/rides/{id}/positions` (coarse).
public struct RidePosition: Sendable, Equatable, Codable {
    /// WGS-84 degrees.
    public var latitude: Double
    public var longitude: Double
    /// The device's reported 68 % horizontal accuracy radius, m.
    public var accuracyMeters: Double
    /// Course over ground, degrees from true north: the driver's device sends the car's course
    /// before it stopped, so the guide knows which side of the street its kerb is on.
    public var courseDegrees: Double?
    /// When the device took the fix (the server's receipt time when the device did not say).
    public var recordedAt: Date

    public init(latitude: Double, longitude: Double, accuracyMeters: Double, courseDegrees: Double? = nil, recordedAt: Date) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyMeters = accuracyMeters
        self.courseDegrees = courseDegrees
        self.recordedAt = recordedAt
    }
}

/// `GET /v1/rides/{id}/position/other`: the other party's latest position, if any.
public struct OtherPartyPosition: Sendable, Equatable, Codable {
    public var position: RidePosition?
    public init(position: RidePosition?) { self.position = position }
}
