/// Detects two devices touching from a plateau at the contact level, not from one packet.
///
/// Phones differ by up to 30 dB at 25 cm, so no absolute dBm means "touch". The threshold comes
/// from the calibration (`Calibration.effectiveTouchRSSI`: measured, or the path-loss level at
/// 5 cm plus a guard). Touch starts when the filtered level is at or above it AND at least
/// `agreeing` of the last `recent` raw packets are too, for `dwell` consecutive samples: a
/// single strong packet (a reflection, a hand over the phone) cannot pass. It ends when the
/// filtered level falls `release` dB below the threshold or the signal goes stale.
public struct TouchDetector: Sendable {
    /// The detector's tuning; each value says where it comes from.
    public struct Parameters: Sendable, Equatable {
        /// Raw packets looked at, and how many of them must be at contact level (4 of 5
        /// tolerates one fade while pressed together).
        public var recent = 5
        /// Of `recent`, how many must be at contact level.
        public var agreeing = 4
        /// Consecutive qualifying samples before touch is declared (0.3 s at 10 Hz).
        public var dwell = 3
        /// dB below the threshold at which touch ends: twice the at-rest level jitter and then
        /// some, so a held touch does not flicker, while pulling apart by a few centimetres
        /// (≥ 6 dB at n ≥ 1 from 1 to 5 cm) ends it.
        public var release = 3.0

        /// The tuned defaults.
        public init() {}
        /// The parameters the guide uses.
        public static let `default` = Parameters()
    }

    /// The tuning this detector runs with.
    public let parameters: Parameters
    /// The contact level, dBm (the calibration's touch RSSI or `TouchLevelRule`'s).
    public let threshold: Double
    public private(set) var isTouching = false
    private var recentPackets: RingBuffer<Double>
    private var qualifying = 0

    /// A detector at contact level `threshold` dBm, not touching.
    public init(threshold: Double, parameters: Parameters = .default) {
        self.threshold = threshold
        self.parameters = parameters
        recentPackets = RingBuffer(capacity: max(1, parameters.recent), filler: -.infinity)
    }

    /// Feeds a raw packet with the filtered level; returns whether the devices are touching.
    public mutating func update(rssi: Double, level: Double) -> Bool {
        guard rssi.isFinite, level.isFinite else { return isTouching }
        recentPackets.append(rssi)
        if isTouching {
            if level < threshold - parameters.release { isTouching = false; qualifying = 0 }
            return isTouching
        }
        var strong = 0
        for i in 0..<recentPackets.count where recentPackets[i] >= threshold { strong += 1 }
        let plateau = level >= threshold && strong >= min(parameters.agreeing, recentPackets.count)
        qualifying = plateau ? qualifying + 1 : 0
        isTouching = qualifying >= parameters.dwell
        return isTouching
    }

    /// Not touching, nothing remembered (a new signal).
    public mutating func reset() {
        isTouching = false
        qualifying = 0
        recentPackets.removeAll()
    }
}
