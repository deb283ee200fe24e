import Foundation

/// One satellite position fix as a device reports it (GeoClue2's Location, the browser's
/// GeolocationCoordinates, `--position`): WGS-84 degrees, the receiver's own 68 % accuracy
/// radius in metres, the course over ground when moving, and when it was taken.
public struct GeoFix: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// The horizontal accuracy the receiver reports, m (a radius; itself imperfect, issue 35).
    public var accuracyMeters: Double
    /// Course over ground, degrees clockwise from true north, when known (the car's heading as it parked).
    public var courseDegrees: Double?
    /// Seconds since 1970 when the fix was taken.
    public var unixTime: Double

    public init(latitude: Double, longitude: Double, accuracyMeters: Double, courseDegrees: Double? = nil, unixTime: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyMeters = accuracyMeters
        self.courseDegrees = courseDegrees
        self.unixTime = unixTime
    }

    /// Mean Earth radius, m (IUGG): the local flat-Earth offsets below are within millimetres
    /// of the ellipsoid's over the few hundred metres a pickup spans.
    public static let earthRadiusMeters = 6_371_008.8

    /// Where `other` is from this fix, in metres east and north (equirectangular, local).
    public func offset(to other: GeoFix) -> (east: Double, north: Double) {
        let radians = Double.pi / 180
        let meanLatitude = (latitude + other.latitude) / 2 * radians
        let east = (other.longitude - longitude) * radians * cos(meanLatitude) * Self.earthRadiusMeters
        let north = (other.latitude - latitude) * radians * Self.earthRadiusMeters
        return (east, north)
    }

    /// Straight-line distance to `other`, m.
    public func distance(to other: GeoFix) -> Double {
        let (east, north) = offset(to: other)
        return (east * east + north * north).squareRoot()
    }

    /// Bearing to `other`, degrees clockwise from true north in [0, 360).
    public func bearing(to other: GeoFix) -> Double {
        let (east, north) = offset(to: other)
        let degrees = atan2(east, north) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// The fix moved by `east` and `north` metres (the simulator's receivers; tests).
    public func moved(east: Double, north: Double) -> GeoFix {
        let radians = Double.pi / 180
        var moved = self
        moved.latitude += north / Self.earthRadiusMeters / radians
        moved.longitude += east / (Self.earthRadiusMeters * cos(latitude * radians)) / radians
        return moved
    }
}
