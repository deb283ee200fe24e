import BeaconCore
import Foundation
import Phrasebook
import RideSession

/// The guide's far field (issue 35): what it keeps of the two phones' satellite fixes, and the
/// rules it speaks them by until the car's Bluetooth signal takes over.
public struct FarField: Sendable {
    /// The far field's constants. Chosen on simulator seeds 1–500 (BENCHMARKS.md, "Issue 35");
    /// the σ multiples are what keeps every spoken claim true when a phone's reported accuracy
    /// is too small (the simulator's `reported-accuracy` sweep).
    public struct Rules: Sendable, Equatable {
        /// A distance is claimed for every distance within this many σ of the fixes' offset.
        public var claimSigmas = 2.5
        /// A direction along the street is said only when the car is at least this many σ one way.
        public var directionSigmas = 1.0
        /// Fixes older than this are not used, s (a phone reports once a second).
        public var stale = 10.0
        /// The far-field sentence is said again after this long, s, and a changed one no sooner
        /// than `spacing` after the last.
        public var repeatEvery = 10.0
        public var spacing = 4.0
        /// Bluetooth takes over once the ranger, past its first samples, puts the car within this, m
        /// (farther, through a car body and parked cars, its level says less than the fixes).
        public var handOverDistance = 10.0
        /// A fix that leaps farther than this, m, beyond what a person walks (`walkingSpeed`, m/s)
        /// since the phone's last fix is a multipath jump, which the reported accuracy does not
        /// show: no distance is claimed and no new direction taken for `settle` s after one
        /// (a jump's start, and its end).
        public var leap = 8.0
        public var walkingSpeed = 2.0
        public var settle = 20.0
        /// No phone's reported accuracy (68 % radius) is taken as better than this, m: a phone
        /// in a street of buildings may report 3 m while its error is 10 (the simulator's
        /// `reported-ratio`); chosen on seeds 1-500.
        public var accuracyFloor = 5.0
        /// The fixes must say "across" this many times running (a second apart) before the car
        /// is judged across the street by them.
        public var acrossFixes = 5
        /// Without a compass, a way said "with the street in front of you" takes her to be on
        /// the car's kerb side; when the fixes' distance grows by this much, m, while she walks
        /// for `wrongWayWindow` s on a sure direction, she is on the other pavement: her left
        /// and right are swapped from then on.
        public var wrongWayMetres = 10.0
        public var wrongWayWindow = 20.0
        public init() {}
    }

    public var rules = Rules()
    /// The traffic side (a setting): which side of the parked car its kerb is.
    public var traffic = TrafficSide.right
    /// The latest fixes, with the guide time they arrived.
    public internal(set) var own: (fix: GeoFix, time: Double)?
    public internal(set) var driver: (fix: GeoFix, time: Double)?
    /// The car's course as it parked: the driver's fixes' course until the arrival, then kept
    /// (the driver may walk away from the car; the car still points the same way).
    public internal(set) var carCourse: Double?
    /// The Bluetooth cues have taken over ("Signal found" said once).
    public internal(set) var handedOver = false
    var handOverSaid = false
    var lastSaid = -Double.infinity
    /// Meeting halfway: the driver is coming and she walks on towards the car (said at `halfwayFrom`).
    public internal(set) var halfway = false
    var halfwayFrom = Double.infinity
    var lastKeys: [PhraseID] = []
    /// The distance the far field last claimed (the simulator scores it against the truth).
    public internal(set) var spokenBand: DistanceBands.Band?
    /// Which way along the street the car was last said to be: +1 the way the car points, −1
    /// the other way (nil: not yet). Kept while the fixes are unsure, changed only when they
    /// are sure of the other way, so the direction does not flip with every fix.
    public internal(set) var alongSign: Double?
    /// Whether the fixes are sure of the direction now.
    public internal(set) var directionSure = false
    /// Where the car's kerb is from her, as last judged.
    public internal(set) var kerbSide = KerbSide.unsure

    public init() {}

    /// Until when the fixes are unsettled (a leap seen, `Rules.leap`).
    public internal(set) var unsettledUntil = -Double.infinity

    mutating func note(own fix: GeoFix, at time: Double) {
        noteLeap(from: own, to: fix, at: time)
        own = (fix, time)
    }

    mutating func note(driver fix: GeoFix, at time: Double, arrived: Bool) {
        noteLeap(from: driver, to: fix, at: time)
        driver = (fix, time)
        if let course = fix.courseDegrees, course.isFinite, !arrived || carCourse == nil { carCourse = course }
    }

    private mutating func noteLeap(from previous: (fix: GeoFix, time: Double)?, to fix: GeoFix, at time: Double) {
        guard let previous else { return }
        if previous.fix.distance(to: fix) > rules.leap + rules.walkingSpeed * max(0, time - previous.time) {
            unsettledUntil = time + rules.settle
        }
    }

    /// How many fixes running have said the car is across.
    var acrossRun = 0
    /// She is taken to be on the pavement across the road from the car's kerb (`wrongWayMetres`).
    public internal(set) var facingSwapped = false
    /// The fixes' distance since the last sure direction said without a compass: (time, m).
    var wayHistory: [(time: Double, distance: Double)] = []

    /// Whether a leap was seen within `settle` s.
    public func unsettled(at time: Double) -> Bool { time < unsettledUntil }

    /// The vector from fresh fixes, with the car's parked course (nil: a fix missing or stale).
    public func vector(at time: Double) -> SatelliteVector? {
        guard let own, let driver, time - own.time <= rules.stale, time - driver.time <= rules.stale,
              own.fix.accuracyMeters.isFinite, driver.fix.accuracyMeters.isFinite else { return nil }
        var vector = SatelliteVector(own: own.fix, driver: driver.fix, accuracyFloor: rules.accuracyFloor)
        vector.carCourse = carCourse
        return vector
    }

    /// Whether the far field guides now: fresh fixes and no hand-over yet.
    public func leads(at time: Double) -> Bool { !handedOver && vector(at: time) != nil }
}
