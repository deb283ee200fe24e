import BeaconCore
import Foundation

/// Which side of the road traffic keeps to (a setting: right-hand by default). A car parked at
/// its own kerb has that kerb on this side of it: on its right in right-hand traffic.
public enum TrafficSide: String, Sendable, CaseIterable, Codable {
    case right
    case left

    public static let usage = "traffic must be one of " + allCases.map(\.rawValue).joined(separator: ", ")
}

/// Where the car is from the passenger by the two phones' satellite fixes (issue 35), and what
/// may truthfully be said about it. Pure: the guide, the driver's core and their tests build one
/// from two `GeoFix`es (here, in RideSession, so both sides share it).
///
/// The uncertainty is the two reported accuracies together (each a 68 % radius, so σ per axis
/// is the radius / 1.515 for a circular normal error), with no credit for the part of the error
/// the two receivers share: the receivers do not say how much that is, and crediting it would
/// make claims the truth may break. Claims are read at `sigmas` σ (the guide's `FarField.Rules`).
public struct SatelliteVector: Sendable, Equatable {
    /// The car's offset from her, metres east and north.
    public var east: Double
    public var north: Double
    /// One axis' standard deviation of that offset, m.
    public var sigma: Double
    /// The car's course as it parked, degrees from north (nil: unknown).
    public var carCourse: Double?

    /// A circular normal error's 68 % radius is 1.515 σ (Rayleigh: √(−2 ln 0.32)).
    public static let radius68PerSigma = (-2 * log(0.32)).squareRoot()

    /// `accuracyFloor`: no phone's reported 68 % radius is taken as smaller than this, m (a
    /// phone may report an accuracy better than its error; the guide's `FarField.Rules`).
    public init(own: GeoFix, driver: GeoFix, accuracyFloor: Double = 0) {
        let offset = own.offset(to: driver)
        east = offset.east
        north = offset.north
        let own = max(accuracyFloor, own.accuracyMeters) / Self.radius68PerSigma
        let car = max(accuracyFloor, driver.accuracyMeters) / Self.radius68PerSigma
        sigma = (own * own + car * car).squareRoot()
        carCourse = driver.courseDegrees
    }

    public init(east: Double, north: Double, sigma: Double, carCourse: Double?) {
        self.east = east
        self.north = north
        self.sigma = sigma
        self.carCourse = carCourse
    }

    public var distance: Double { (east * east + north * north).squareRoot() }

    /// The distances the fixes allow at `sigmas` σ, m (a 2-D offset's length moves by at most the
    /// offset's error; `sigmas` · √2 σ covers both axes' worst).
    public func bounds(sigmas: Double) -> (low: Double, high: Double) {
        let reach = sigmas * sigma * 2.0.squareRoot()
        return (max(0, distance - reach), distance + reach)
    }

    /// The car along the street, m: positive when it is ahead in the car's own direction of
    /// travel (its course) from her, and her offset across the street from the car towards its
    /// kerb side (positive: she is on the side of the car its kerb is). Nil without a course.
    public func streetFrame(traffic: TrafficSide) -> (carAlong: Double, herKerbward: Double)? {
        guard let course = carCourse else { return nil }
        let c = course * .pi / 180
        let along = (east: sin(c), north: cos(c))
        // The kerb is on the car's right (right-hand traffic) or left, a quarter turn from its course.
        let k = (traffic == .right ? course + 90 : course - 90) * .pi / 180
        let kerbward = (east: sin(k), north: cos(k))
        let carAlong = east * along.east + north * along.north
        // She is at minus the car's offset.
        let herKerbward = -(east * kerbward.east + north * kerbward.north)
        return (carAlong, herKerbward)
    }

    /// A distance said from the fixes: "About N" (true when N/2 ≤ truth ≤ 2N, the guide's
    /// strict reading of its own bands) or "More than N" (truth ≥ N).
    public enum Claim: Sendable, Equatable {
        case about(Int)
        case moreThan(Int)
    }

    /// The most telling distance claim true for every distance the fixes allow at `sigmas` σ:
    /// "About N" (N/2…2N), else "More than N", else nil. Numbers are whole, rounded as people say them.
    public func claim(sigmas: Double) -> Claim? {
        let (low, high) = bounds(sigmas: sigmas)
        let abouts = Self.aboutNumbers.filter { Double($0) / 2 <= low && high <= 2 * Double($0) }
        if let best = abouts.min(by: { abs(log(Double($0) / max(distance, 1))) < abs(log(Double($1) / max(distance, 1))) }) {
            return .about(best)
        }
        return Self.lowerBounds.last { Double($0) <= low }.map { .moreThan($0) }
    }

    static let aboutNumbers = [5, 10, 15, 20, 30, 40, 50, 75, 100]
    static let lowerBounds = [5, 10, 15, 20, 30, 40, 50, 75, 100]
}

/// Which side of the street the car's kerb is on, from her (issue 35): the car parked along its
/// kerb, so its course gives the street's line and the traffic side which side of the car the
/// kerb is. She is on the car's side when she is on its kerb side (a car at her kerb, or
/// double-parked beside it); across when the road is between them.
public enum KerbSide: String, Sendable, Equatable {
    case herSide = "her_side"
    case across
    /// The fixes do not tell (or the course is unknown).
    case unsure

    /// Judged at `sigmas` σ: she is at least `halfRoad` metres on the road side of the car (the
    /// far kerb's half of the street) for `across`, on its kerb side of that line for `herSide`.
    /// `courseError`, degrees: how far the reported course may be off the street's line; it
    /// moves her offset across the line by the distance along it times its sine.
    public static func judge(_ vector: SatelliteVector, traffic: TrafficSide, sigmas: Double, halfRoad: Double,
                             courseError: Double = 10) -> KerbSide {
        guard let frame = vector.streetFrame(traffic: traffic) else { return .unsure }
        let reach = sigmas * vector.sigma + abs(frame.carAlong) * sin(courseError * .pi / 180)
        if frame.herKerbward - reach > -halfRoad { return .herSide }
        if frame.herKerbward + reach < -halfRoad { return .across }
        return .unsure
    }
}
