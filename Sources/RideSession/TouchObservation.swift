import BeaconCore
import RideClient

/// What one side saw of the other's beacon while the devices touched: the substance of a touch
/// proof (DESIGN.md "Touch confirmation").
public struct TouchObservation: Equatable, Sendable {
    public var identity: BeaconIdentity
    public var slot: UInt64
    public var peakFilteredRSSI: Double
    public var samples: Int
    /// Wall-clock time of the last touching advertisement.
    public var unixTime: Double
    /// Wall-clock time this side's signal reached the touch level: the observation window is
    /// `firstUnixTime...unixTime` (`MutualTouchRule`).
    public var firstUnixTime: Double

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

/// The mutual touch rule (RideWire's `MutualTouchRule`) for the session cores and the guide.
public enum TouchWindows {
    /// How far apart two sides' observation windows may be and still be one touch, s.
    public static let tolerance = MutualTouchRule.tolerance

    /// Whether the windows `from1...until1` and `from2...until2` (wall-clock seconds) are one touch.
    public static func meet(_ from1: Double, _ until1: Double, _ from2: Double, _ until2: Double) -> Bool {
        MutualTouchRule.simultaneous(from1, until1, from2, until2)
    }
}

/// The ride service's answer to a touch proof.
public enum ProofAnswer: Sendable, Equatable {
    case confirmed
    /// Accepted; the other side's proof is still missing (mutual policy).
    case awaitingCounterpart
    /// Accepted, but the other side's proof was observed at another time: the two devices did
    /// not feel the same touch (mutual policy). A later proof whose window meets it confirms.
    case notSimultaneous
    /// Rejected or not verified; the reason in words ("stale slot", "wrong identity").
    case rejected(String)
}

/// The ride service's answer to the passenger's request for the car's locator sound.
public enum LocatorAnswer: Sendable, Equatable {
    /// The car has been asked; it ticks for this long unless the devices touch first, s.
    case ticking(seconds: Double)
    /// Asked too recently; the car is probably ticking already. Ask again after this long, s.
    case tooSoon(retryAfter: Double)
    /// Refused or not delivered; the reason in words.
    case refused(String)
}

/// What a side hears of its ride from the ride service while at the kerb.
public enum RideUpdate: Sendable, Equatable {
    /// The service became (un)reachable; the stream reconnects by itself.
    case reachable(Bool)
    case arrived
    /// One side's touch proof was accepted without confirming the ride (mutual policy): when
    /// that side's device felt the touch, wall-clock seconds.
    case touchObserved(by: BeaconSide, from: Double, until: Double)
    case confirmed
    case completed
    case cancelled
    /// The passenger asked the car to sound its locator, at this wall-clock time (s since
    /// 1970): a stream replaying history brings old requests too, which have run out.
    case locatorRequested(unixTime: Double)
    /// The driver answered a locator request: the sound made (`none`: cannot now), at this
    /// wall-clock time (a replayed history brings old answers too).
    case locatorAnswered(LocatorSoundName, unixTime: Double)
    /// The driver is walking to the passenger (`coming`), or the car is across the street and
    /// the driver comes round (`across`), at this wall-clock time.
    case meeting(MeetingMove, unixTime: Double)
    /// The stream ended for good (refused, the ride is gone); the reason in words.
    case failed(String)
}
