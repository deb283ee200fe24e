import BeaconCore
import Foundation
import RideRules

/// What one side saw of the other's beacon while the devices touched, as the session cores
/// compute it (`CounterpartTouch`): typed values on the cores' clocks. It is not a second proof
/// model: what goes on the wire is RideWire's `TouchProof`, made from it by
/// `TouchProof(observation)` (the one place the two meet).
///
/// ```swift
/// let seen = TouchObservation(identity: id, slot: 56_666_667, peakFilteredRSSI: -38, samples: 12,
///                             unixTime: 1_700_000_011.2, firstUnixTime: 1_700_000_009.9)
/// let proof = TouchProof(seen)   // what RideServiceClient posts
/// ```
public struct TouchObservation: Equatable, Sendable {
    /// The counterpart's identity as observed.
    public var identity: BeaconIdentity
    /// The identity's slot, floor((unix seconds − the ride's offset) / period) (`RotatingIdentity.slot(at:)`).
    public var slot: UInt64
    /// Peak filtered RSSI while touching, dBm.
    public var peakFilteredRSSI: Double
    /// Touching advertisements the observation rests on.
    public var samples: Int
    /// Wall-clock time of the last touching advertisement.
    public var unixTime: Double
    /// Wall-clock time this side's signal reached the touch level: the observation window is
    /// `firstUnixTime...unixTime` (`MutualTouchRule`).
    public var firstUnixTime: Double

    /// An observation; without `firstUnixTime` the window is the instant `unixTime` (a later
    /// start is clamped to it).
    public init(identity: BeaconIdentity, slot: UInt64, peakFilteredRSSI: Double, samples: Int, unixTime: Double,
                firstUnixTime: Double? = nil) {
        self.identity = identity
        self.slot = slot
        self.peakFilteredRSSI = peakFilteredRSSI
        self.samples = samples
        self.unixTime = unixTime
        self.firstUnixTime = min(firstUnixTime ?? unixTime, unixTime)
    }

    /// Whether the other side's observation window `from...until` (wall clock) is the same
    /// touch as this one's.
    public func isSimultaneous(withWindowFrom from: Double, until: Double) -> Bool {
        TouchWindows.meet(firstUnixTime, unixTime, from, until)
    }
}

extension TouchProof {
    /// The proof a side's observation makes, its window included (clamped as
    /// `TouchProof.init(uuid:major:minor:slot:peakRssiDbm:samples:observedAt:observedFrom:)` does).
    public init(_ observation: TouchObservation) {
        self.init(uuid: observation.identity.uuid, major: observation.identity.major, minor: observation.identity.minor,
                  slot: observation.slot, peakRssiDbm: observation.peakFilteredRSSI, samples: observation.samples,
                  observedAt: Date(timeIntervalSince1970: observation.unixTime),
                  observedFrom: Date(timeIntervalSince1970: observation.firstUnixTime))
    }
}

/// The mutual touch rule (RideRules' `TouchPairing`) for the session cores and the guide.
public enum TouchWindows {
    /// How far apart two sides' observation windows may be and still be one touch, s.
    public static let tolerance = MutualTouchRule.tolerance

    /// Whether the windows `from1...until1` and `from2...until2` (wall-clock seconds) are one touch.
    public static func meet(_ from1: Double, _ until1: Double, _ from2: Double, _ until2: Double) -> Bool {
        TouchPairing.simultaneous(from1, until1, from2, until2)
    }
}
