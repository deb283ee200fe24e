import BeaconCore

/// One side's view of the touch: recognises the other side's beacon for this ride, ranges it
/// and holds the observation a touch proof is made of while the two devices touch.
public struct CounterpartTouch: Sendable {
    private var matcher: IdentityMatcher
    private var ranger: Ranger
    private var peak = -Double.infinity
    private var samples = 0
    /// Wall-clock time the current touch began (the observation window's start).
    private var touchFrom: Double?
    /// The latest touch as a proof would carry it (nil before the first touch); it stays after
    /// the touch ends, for a late Enter within `DriverCore.freshness`.
    public private(set) var observation: TouchObservation?
    /// The counterpart's latest range estimate (nil until its beacon is heard).
    public private(set) var lastEstimate: RangeEstimate?

    /// Looks for `side`'s beacon of the ride whose identity is `identity`; touch is judged with
    /// `calibration`'s touch level.
    public init(identity: RotatingIdentity, lookingFor side: BeaconSide, calibration: Calibration = Calibration(model: .default)) {
        matcher = IdentityMatcher(identity: identity, lookingFor: side)
        ranger = Ranger(calibration: calibration)
    }

    /// Feeds one advertisement: whether the devices touch now, or nil when it is not the
    /// counterpart's beacon (another car's, an old slot's), which changes nothing.
    @discardableResult
    public mutating func sighting(time: Double, unixTime: Double, rssi: Double, beacon: IBeacon) -> Bool? {
        guard let slot = matcher.match(beacon, at: unixTime) else { return nil }
        let estimate = ranger.update(time: time, rssi: rssi)
        lastEstimate = estimate
        guard estimate.touch else {
            peak = -.infinity
            samples = 0
            touchFrom = nil
            return false
        }
        peak = max(peak, estimate.filteredRSSI)
        samples += 1
        if touchFrom == nil { touchFrom = unixTime }
        observation = TouchObservation(identity: BeaconIdentity(beacon), slot: slot, peakFilteredRSSI: peak,
                                       samples: samples, unixTime: unixTime, firstUnixTime: touchFrom)
        return true
    }
}
