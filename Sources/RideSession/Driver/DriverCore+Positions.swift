import BeaconCore
import Foundation
import Phrasebook

/// What the driver's device keeps of the two satellite fixes (issue 35), and its rules.
public struct DriverSatellite: Sendable {
    /// The traffic side (the driver's setting): which side of the car its kerb is.
    public var traffic = TrafficSide.right
    /// Distances are claimed at this many σ of both reported accuracies (the guide's rule).
    public var claimSigmas = 2.5
    /// No phone's reported accuracy is taken as better than this, m (the guide's rule).
    public var accuracyFloor = 5.0
    /// She is said to be across the street at this many σ, more than `halfRoad` m on the road
    /// side of the car (the guide's across-the-street rule's constants).
    public var acrossSigmas = 2.5
    public var halfRoad = 5.7
    /// Her position is told again after this long while he walks to her and the radio does not
    /// range her yet, s.
    public var repeatEvery = 15.0
    /// Fixes older than this are not used, s.
    public var stale = 10.0
    var own: (fix: GeoFix, time: Double)?
    var passenger: (fix: GeoFix, time: Double)?
    var carCourse: Double?
    var lastTold = -Double.infinity
    /// How many times her position has been told.
    public internal(set) var told = 0

    public init() {}

    /// The vector from her to the car, from fresh fixes (nil: one missing or stale).
    func vector(at time: Double) -> SatelliteVector? {
        guard let own, let passenger, time - own.time <= stale, time - passenger.time <= stale else { return nil }
        var vector = SatelliteVector(own: passenger.fix, driver: own.fix, accuracyFloor: accuracyFloor)
        vector.carCourse = carCourse
        return vector
    }
}

/// The driver's side of meeting halfway (issue 35): where the passenger is from the car by the
/// satellite fixes, "By satellite, Ana is ahead of the car, about 20 meters away.", said when
/// the car has arrived and again while he walks to her, until the radio ranges her (then the
/// radio's distances, `passengerDistance`, are the better words). Only claims the fixes'
/// reported accuracies support (`SatelliteVector.claim`); "across the street" only at
/// `acrossSigmas`.
extension DriverCore {
    mutating func positions(time: Double, own: GeoFix?, passenger: GeoFix?) -> [Action] {
        if let own {
            satellite.own = (own, time)
            if satellite.carCourse == nil, let course = own.courseDegrees, course.isFinite { satellite.carCourse = course }
        }
        if let passenger { satellite.passenger = (passenger, time) }
        guard passengerEstimate(at: time) == nil, let vector = satellite.vector(at: time) else { return [] }
        let due = satellite.told == 0 || (coming && time - satellite.lastTold >= satellite.repeatEvery)
        guard due, let words = passengerWords(vector) else { return [] }
        satellite.told += 1
        satellite.lastTold = time
        return [.tell(words)]
    }

    /// The sentence for `vector` (from her to the car), nil when neither a direction nor a
    /// distance can be said.
    func passengerWords(_ vector: SatelliteVector) -> String? {
        let distance: String? = switch vector.claim(sigmas: satellite.claimSigmas) {
        case .about(let n)?: book(.driverDistanceAbout, ["distance": .count(n)])
        case .moreThan(let n)?: book(.driverDistanceMoreThan, ["distance": .count(n)])
        case nil: nil
        }
        guard let distance, let frame = vector.streetFrame(traffic: satellite.traffic) else { return nil }
        let name = PhraseValue.text(meeting.passengerName)
        if KerbSide.judge(vector, traffic: satellite.traffic, sigmas: satellite.acrossSigmas, halfRoad: satellite.halfRoad) == .across {
            return book(.driverPassengerAcross, ["name": name, "distance": .text(distance)])
        }
        // The car is ahead of her along its course when she is behind it.
        guard abs(frame.carAlong) >= vector.sigma else { return nil }
        return book(frame.carAlong > 0 ? .driverPassengerBehind : .driverPassengerAhead, ["name": name, "distance": .text(distance)])
    }
}
