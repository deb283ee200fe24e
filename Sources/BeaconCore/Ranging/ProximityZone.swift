/// Where the passenger is relative to the beacon, in words an audio cue can use.
public enum ProximityZone: String, Sendable, CaseIterable {
    /// Devices touching (from the touch detector, not from distance).
    case touch
    /// Within arm's reach: under about 0.5 m.
    case immediate
    /// A few steps away: under about 3 m, roughly a car length.
    case near
    /// Further.
    case far
    /// No recent signal, or not enough of it yet.
    case unknown
}

/// Distance zones with hysteresis. Boundaries are distances, converted once to RSSI levels
/// through the path-loss model so that hysteresis is in dB, the unit the noise is in.
public struct ZoneClassifier: Sendable {
    /// Zone boundaries, metres: 0.5 m is arm's reach (the passenger can find the handle),
    /// 3 m about a car length (the car is "right here").
    public static let immediateDistance = 0.5
    /// The near/far boundary, metres.
    public static let nearDistance = 3.0
    /// Half-width of the hysteresis band, dB. About three times the at-rest jitter of the
    /// filtered level (≈0.4 dB), so a passenger standing on a boundary hears one zone, while a
    /// walker crosses the 3 dB band within a step or two (a metre at 3 m changes RSSI by
    /// ≈2.5 dB at n = 2).
    public static let hysteresis = 1.5

    let immediateLevel: Double
    let nearLevel: Double
    public private(set) var zone: ProximityZone = .unknown

    /// A classifier with the zone boundaries converted to RSSI levels through `model`.
    public init(model: PathLossModel) {
        immediateLevel = model.rssi(atDistance: Self.immediateDistance)
        nearLevel = model.rssi(atDistance: Self.nearDistance)
    }

    /// Classifies a filtered level (dBm), moving to a neighbouring zone only once the level is
    /// past that boundary by the hysteresis margin.
    public mutating func update(level: Double) -> ProximityZone {
        guard level.isFinite else {
            zone = .unknown
            return zone
        }
        let h = Self.hysteresis
        switch zone {
        case .unknown, .touch:
            // Fresh start: no history to be sticky about.
            zone = level >= immediateLevel ? .immediate : level >= nearLevel ? .near : .far
        case .immediate:
            if level < immediateLevel - h { zone = level >= nearLevel - h ? .near : .far }
        case .near:
            if level >= immediateLevel + h { zone = .immediate } else if level < nearLevel - h { zone = .far }
        case .far:
            if level >= nearLevel + h { zone = level >= immediateLevel + h ? .immediate : .near }
        }
        return zone
    }

    /// Forgets the current zone (after a signal loss).
    public mutating func reset() { zone = .unknown }
}
