/// Detects two devices touching: from a plateau at the calibration's contact level, and, when
/// `Parameters.step` is set, from the step the signal makes over this device's own last
/// seconds (`TouchStep`, issue 34).
///
/// Phones differ by up to 30 dB at 25 cm, so no absolute dBm means "touch" for every pair, and
/// low-power phones never reach the default calibration's level (−33.5 dBm). The step rule
/// feels them, but on held-out phone pairs it also fires at 10–30 cm and out of multipath nulls
/// far more often than the level rule (BENCHMARKS.md, "Touch from the step"), so it is not on
/// by default: `Parameters.withStep` turns it on. The level rule's threshold comes from the
/// calibration (`Calibration.effectiveTouchRSSI`: measured, or `TouchLevelRule`'s from the
/// pair's line); beside the step it catches a touch the step cannot see (the phones already
/// together when ranging starts). It starts when the filtered level is at or
/// above the threshold AND at least `agreeing` of the last `recent` raw packets are too, for
/// `dwell` consecutive samples: a single strong packet (a reflection, a hand over the phone)
/// cannot pass; it ends when the filtered level falls `release` dB below the threshold. Either
/// rule's touch is a touch; a stale signal ends both (the ranger calls `reset()`).
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
        /// The step rule (nil: off, the default; see the type's comment).
        public var step: TouchStep.Parameters?
        /// Whether the level rule runs (beside the step it adds a touch already under way when
        /// ranging starts and, on the herald events, nothing else: BENCHMARKS.md).
        public var level = true

        /// The tuned defaults.
        public init() {}
        /// The parameters the guide uses.
        public static let `default` = Parameters()
        /// The step rule with the level rule beside it (issue 34's detector).
        public static let withStep: Parameters = {
            var p = Parameters()
            p.step = .default
            return p
        }()
    }

    /// The tuning this detector runs with.
    public let parameters: Parameters
    /// The contact level, dBm (the calibration's touch RSSI or `TouchLevelRule`'s).
    public let threshold: Double
    /// Whether either rule sees a touch now.
    public var isTouching: Bool { atLevel || (step?.isTouching ?? false) }
    /// The step rule's state (nil when it is off).
    public private(set) var step: TouchStep?
    /// Whether the level rule sees a touch now.
    public private(set) var atLevel = false
    private var recentPackets: RingBuffer<Double>
    private var qualifying = 0

    /// A detector at contact level `threshold` dBm, not touching.
    public init(threshold: Double, parameters: Parameters = .default) {
        self.threshold = threshold
        self.parameters = parameters
        recentPackets = RingBuffer(capacity: max(1, parameters.recent), filler: -.infinity)
        step = parameters.step.map { TouchStep(parameters: $0) }
    }

    /// Feeds a raw packet received at `time` (s) with the filtered level; returns whether the
    /// devices are touching.
    public mutating func update(time: Double, rssi: Double, level: Double) -> Bool {
        guard rssi.isFinite, level.isFinite else { return isTouching }
        _ = step?.update(time: time, rssi: rssi)
        if parameters.level { updateLevelRule(rssi: rssi, level: level) }
        return isTouching
    }

    private mutating func updateLevelRule(rssi: Double, level: Double) {
        recentPackets.append(rssi)
        if atLevel {
            if level < threshold - parameters.release { atLevel = false; qualifying = 0 }
            return
        }
        var strong = 0
        for i in 0..<recentPackets.count where recentPackets[i] >= threshold { strong += 1 }
        let plateau = level >= threshold && strong >= min(parameters.agreeing, recentPackets.count)
        qualifying = plateau ? qualifying + 1 : 0
        atLevel = qualifying >= parameters.dwell
    }

    /// Not touching, nothing remembered (a new signal).
    public mutating func reset() {
        atLevel = false
        qualifying = 0
        recentPackets.removeAll()
        step?.reset()
    }
}
