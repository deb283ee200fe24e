import BeaconCore
import Foundation
import Guide
import RideSession

/// Every number of the simulated satellite positions (issue 35), cited or assumed in
/// docs/SIMULATOR.md ("Satellite positions") and swept by `GuideBenchmark --gnss-sweep`.
public struct GNSSParameters: Sendable, Equatable {
    /// Each axis' error σ, m, drawn per walk (the street's sky, both phones alike): Merry &
    /// Bettinger 2019 (PLOS ONE 14(7):e0219890) found an iPhone 6's mean horizontal error in an
    /// urban setting 7–13 m; a circular normal error's mean radius is 1.2533 σ, so σ 5.6–10.4 m.
    public var sigma: ClosedRange<Double> = 5.6...10.4
    /// The error's correlation time, s (a first-order Gauss–Markov process): a consumer GPS
    /// receiver's horizontal error autocorrelation bends at about a minute (D. L. Wilson,
    /// "GPS horizontal position accuracy", Garmin 12XL); raw code multipath is modelled with 10–900 s.
    public var correlationTime = 60.0
    /// The share of the error variance the two phones share (satellite orbits and clocks, the
    /// atmosphere; multipath is each phone's own): assumed.
    public var sharedShare = 0.5
    /// Multipath jumps: each phone starts one at this rate, per s, of this size, m, lasting this
    /// long, s (assumed; the reported accuracy does not show them).
    public var jumpRate = 1.0 / 120
    public var jumpSize: ClosedRange<Double> = 15.0...40.0
    public var jumpDuration: ClosedRange<Double> = 3.0...15.0
    /// The reported accuracy (Android's 68 % radius, `Location.getAccuracy`) against the true
    /// 68 % radius of the steady error: this median ratio (1: honest), spread per phone per walk
    /// by a log-normal σ, and 10 % per fix (assumed).
    public var reportedRatio = 1.0
    public var reportedSpread = 0.3
    /// A fix a second (Android's GNSS rate; the Smartphone Decimeter Challenge logs at 1 Hz);
    /// the driver's fix reaches her as the device's sharing polls (`PositionSharing.Policy.pollSeconds`).
    public var fixInterval = 1.0
    public var pollInterval = 2.0
    /// The car's course as it parked, from the last moving fixes: σ, degrees (assumed).
    public var courseError = 5.0
    /// A steady compass error per walk, σ, degrees, on top of `SimulatedCompass`'s scatter
    /// (assumed: a phone near a car's steel, uncalibrated).
    public var compassBias = 10.0

    public init() {}

    /// The values `--gnss-sweep NAME` moves to (low, mid, high); mid is the default.
    public static let sweeps: [(name: String, set: @Sendable (inout GNSSParameters, Double) -> Void, values: [Double])] = [
        ("gnss-sigma-mid", { $0.sigma = max(0.5, $1 - 2.4)...($1 + 2.4) }, [3, 8, 13]),
        ("gnss-correlation-time", { $0.correlationTime = $1 }, [10, 60, 300]),
        ("gnss-shared-share", { $0.sharedShare = $1 }, [0, 0.5, 0.8]),
        ("gnss-jump-rate", { $0.jumpRate = $1 }, [0, 1.0 / 120, 1.0 / 30]),
        ("gnss-reported-ratio", { $0.reportedRatio = $1 }, [0.5, 1, 1.5]),
        ("gnss-course-error", { $0.courseError = $1 }, [2, 5, 20]),
        ("gnss-compass-bias", { $0.compassBias = $1 }, [0, 10, 30]),
    ]
}

/// The street's place on the Earth for one walk: its axis at a random bearing, mirrored for
/// left-hand traffic (a mirrored right-hand street is a left-hand one: the car at her kerb has
/// it on its left).
public struct GeoFrame: Sendable {
    /// The street's +x axis, radians counter-clockwise from east; −1 when mirrored.
    public let axis: Double
    public let mirror: Double
    public let origin: GeoFix

    public init(axis: Double, traffic: TrafficSide) {
        self.axis = axis
        mirror = traffic == .right ? 1 : -1
        origin = GeoFix(latitude: 48.8566, longitude: 2.3522, accuracyMeters: 0, unixTime: 0)
    }

    /// A street point in metres east and north of the origin.
    public func eastNorth(_ p: Point) -> (east: Double, north: Double) {
        let y = mirror * p.y
        return (p.x * cos(axis) - y * sin(axis), p.x * sin(axis) + y * cos(axis))
    }

    /// A street heading (radians counter-clockwise from +x) as a compass bearing, degrees.
    public func bearing(heading: Double) -> Double {
        HeadingBins.wrapped(90 - (axis + mirror * heading) * 180 / .pi)
    }
}

/// Two phones' satellite fixes on the street (issue 35): each phone's error a shared and an own
/// first-order Gauss–Markov process (`GNSSParameters`), multipath jumps, a reported accuracy
/// that is itself off, a fix a second; the driver's fixes carry the car's course as it parked.
/// Its own random stream: walks without positions draw what they drew.
public struct SimulatedGNSS: Sendable {
    public let parameters: GNSSParameters
    public let frame: GeoFrame
    /// This walk's error σ per axis, m, and each phone's reported-accuracy ratio.
    public let sigma: Double
    let ratio: (passenger: Double, driver: Double)
    /// The car's course as it parked, degrees, as the driver's device reports it.
    public let reportedCourse: Double
    /// The compass's steady error this walk, degrees.
    public let compassBias: Double
    private var rng: SeededRandom
    private var shared = (0.0, 0.0)
    private var own = [(0.0, 0.0), (0.0, 0.0)]
    private var jumps: [(east: Double, north: Double, until: Double)?] = [nil, nil]
    private var last = 0.0
    /// The latest fixes, and when the next is due.
    public private(set) var passengerFix: GeoFix?
    public private(set) var driverFix: GeoFix?
    private var nextFix = 0.0
    private var nextPoll = 0.0

    /// `carHeading`: the car's direction of travel as it parked, the street's radians.
    public init(parameters: GNSSParameters, traffic: TrafficSide, carHeading: Double, seed: UInt64) {
        self.parameters = parameters
        var rng = SeededRandom(seed: seed ^ 0x6E55_0035)
        frame = GeoFrame(axis: rng.uniform(-Double.pi...Double.pi), traffic: traffic)
        sigma = rng.uniform(parameters.sigma)
        ratio = (parameters.reportedRatio * exp(parameters.reportedSpread * rng.gaussian()),
                 parameters.reportedRatio * exp(parameters.reportedSpread * rng.gaussian()))
        reportedCourse = HeadingBins.wrapped(frame.bearing(heading: carHeading) + parameters.courseError * rng.gaussian())
        compassBias = parameters.compassBias * rng.gaussian()
        // Start each process in its steady state.
        let s = sigma * parameters.sharedShare.squareRoot(), o = sigma * (1 - parameters.sharedShare).squareRoot()
        shared = (s * rng.gaussian(), s * rng.gaussian())
        own = [(o * rng.gaussian(), o * rng.gaussian()), (o * rng.gaussian(), o * rng.gaussian())]
        self.rng = rng
    }

    /// Advances the errors to `time` and returns the fixes due: hers every `fixInterval`, the
    /// driver's as her device polls for it (nil between).
    public mutating func fixes(at time: Double, unixTime: Double, passenger: Point, driver: Point)
        -> (own: GeoFix?, driver: GeoFix?, driversOwn: GeoFix?) {
        guard time + 1e-9 >= nextFix else { return (nil, nil, nil) }
        nextFix = time + parameters.fixInterval
        advance(to: time)
        let her = fix(phone: 0, at: passenger, unixTime: unixTime, course: nil)
        let his = fix(phone: 1, at: driver, unixTime: unixTime, course: reportedCourse)
        passengerFix = her
        var delivered: GeoFix?
        if time + 1e-9 >= nextPoll {
            nextPoll = time + parameters.pollInterval
            driverFix = his
            delivered = his
        }
        return (her, delivered, his)
    }

    /// The compass bearing her phone reads for a street heading (its steady error added;
    /// `SimulatedCompass` adds the scatter).
    public func compassHeading(_ heading: Double) -> Double {
        // As the simulator's radians counter-clockwise from east, which `SimulatedCompass` takes.
        (90 - frame.bearing(heading: heading) - compassBias) * .pi / 180
    }

    private mutating func advance(to time: Double) {
        let dt = max(0, time - last)
        last = time
        let decay = exp(-dt / parameters.correlationTime)
        let drive = (1 - decay * decay).squareRoot()
        let s = sigma * parameters.sharedShare.squareRoot(), o = sigma * (1 - parameters.sharedShare).squareRoot()
        shared = (shared.0 * decay + s * drive * rng.gaussian(), shared.1 * decay + s * drive * rng.gaussian())
        for phone in 0..<2 {
            own[phone] = (own[phone].0 * decay + o * drive * rng.gaussian(), own[phone].1 * decay + o * drive * rng.gaussian())
            if let jump = jumps[phone], time >= jump.until { jumps[phone] = nil }
            if jumps[phone] == nil, rng.chance(parameters.jumpRate * dt) {
                let size = rng.uniform(parameters.jumpSize), angle = rng.uniform(-Double.pi...Double.pi)
                jumps[phone] = (size * cos(angle), size * sin(angle), time + rng.uniform(parameters.jumpDuration))
            }
        }
    }

    private mutating func fix(phone: Int, at point: Point, unixTime: Double, course: Double?) -> GeoFix {
        let truth = frame.eastNorth(point)
        let jump = jumps[phone]
        let east = truth.east + shared.0 + own[phone].0 + (jump?.east ?? 0)
        let north = truth.north + shared.1 + own[phone].1 + (jump?.north ?? 0)
        let reported = SatelliteVector.radius68PerSigma * sigma * (phone == 0 ? ratio.passenger : ratio.driver)
            * max(0.5, 1 + 0.1 * rng.gaussian())
        var fix = frame.origin.moved(east: east, north: north)
        fix.accuracyMeters = reported
        fix.courseDegrees = course
        fix.unixTime = unixTime
        return fix
    }
}
