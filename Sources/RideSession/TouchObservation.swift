import BeaconCore

/// What one side saw of the other's beacon while the devices touched: the substance of a touch
/// proof (DESIGN.md "Touch confirmation").
public struct TouchObservation: Equatable, Sendable {
    public var identity: BeaconIdentity
    public var slot: UInt64
    public var peakFilteredRSSI: Double
    public var samples: Int
    /// Wall-clock time of the last touching advertisement.
    public var unixTime: Double

    public init(identity: BeaconIdentity, slot: UInt64, peakFilteredRSSI: Double, samples: Int, unixTime: Double) {
        self.identity = identity
        self.slot = slot
        self.peakFilteredRSSI = peakFilteredRSSI
        self.samples = samples
        self.unixTime = unixTime
    }
}

/// The ride service's answer to a touch proof.
public enum ProofAnswer: Sendable, Equatable {
    case confirmed
    /// Accepted; the other side's proof is still missing (mutual policy).
    case awaitingCounterpart
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
    case confirmed
    case completed
    case cancelled
    /// The passenger asked the car to sound its locator, at this wall-clock time (s since
    /// 1970): a stream replaying history brings old requests too, which have run out.
    case locatorRequested(unixTime: Double)
    /// The stream ended for good (refused, the ride is gone); the reason in words.
    case failed(String)
}
