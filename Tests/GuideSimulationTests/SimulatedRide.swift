import BeaconCore
import Guide

/// The ride the simulator's walks are run for: the same as GuideTests' `ScriptedGuide` (a 30 s
/// slot boundary, ride key 42), so a walk here and a scripted walk there meet the same ride.
enum SimulatedRide {
    static let base = 1_700_000_010.0  // a 30 s slot boundary (1_700_000_010 = 30 × 56_666_667)
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 42, count: 32))
    static let ride = GuideRide(rideID: "ride-1", driverName: "Ben", vehicle: "blue Toyota Prius", identity: identity)
    /// The same ride with a ride word (GuideTests' `MeetingGuideTests.wordRide`).
    static let wordRide = GuideRide(rideID: "ride-1", driverName: "Ben", vehicle: "blue Toyota Prius", identity: identity,
                                    rideWord: "river candle")
}
