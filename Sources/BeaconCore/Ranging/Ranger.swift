/// Everything the guide needs to know about one beacon at one moment.
public struct RangeEstimate: Sendable, Equatable {
    /// Seconds, on the caller's clock.
    public var time: Double
    /// The raw sample at this time (nil when estimating without a sample).
    public var rssi: Double?
    /// Filtered level, dBm (NaN before the first sample).
    public var filteredRSSI: Double
    /// Distance from the path-loss model, metres (NaN before the first sample).
    public var distance: Double
    /// Immediate, near, far or unknown, with hysteresis.
    public var zone: ProximityZone
    /// Approaching, receding, steady or unknown.
    public var trend: Trend
    /// Whether the two devices are held together now.
    public var touch: Bool
}

/// Turns one beacon's RSSI samples into filtered level, distance, zone, trend and touch.
/// Deterministic, and allocation-free per sample (fixed-size buffers made in `init`).
public struct Ranger: Sendable {
    /// Shortest silence that makes zone and trend `unknown` and ends touch, s. The actual limit
    /// is the larger of this and `missedSamples` typical intervals: a foreground scanner at
    /// 10 Hz that hears nothing for 3 s has lost the beacon, while phones scanning in the
    /// background report every 2–6 s (herald data) and must not flap in and out of "unknown".
    public static let defaultStaleAfter = 3.0
    /// Typical intervals of silence before the signal counts as lost.
    public static let missedSamples = 3.0
    /// Weight of each new interval in the typical-interval average; gaps longer than
    /// `intervalCap` (outages, not the scan rate) are left out of it.
    static let intervalAdaptation = 0.1
    static let intervalCap = 10.0

    /// The calibration the distances and the touch level come from.
    public let calibration: Calibration
    /// Seconds without a sample after which the signal counts as lost.
    public let staleAfter: Double
    public private(set) var filter: RSSIFilter
    public private(set) var trendEstimator: TrendEstimator
    public private(set) var touchDetector: TouchDetector
    private var zones: ZoneClassifier
    private var lastSampleTime = -Double.infinity
    private var typicalInterval = 0.0

    /// A ranger for one beacon; each stage's tuning may be overridden.
    public init(calibration: Calibration,
                filter: RSSIFilter.Parameters = .default,
                trend: TrendEstimator.Parameters = .default,
                touch: TouchDetector.Parameters = .default,
                staleAfter: Double = Ranger.defaultStaleAfter) {
        self.calibration = calibration
        self.staleAfter = staleAfter
        self.filter = RSSIFilter(parameters: filter)
        self.trendEstimator = TrendEstimator(parameters: trend)
        self.touchDetector = TouchDetector(threshold: calibration.effectiveTouchRSSI, parameters: calibration.touchStep ? .withStep : touch)
        self.zones = ZoneClassifier(model: calibration.model)
    }

    /// A ranger with default tuning and the touch level derived from `model`:
    ///
    /// ```swift
    /// var ranger = Ranger(model: PathLossModel(txPower: -59, exponent: 2))
    /// let estimate = ranger.update(time: 0.1, rssi: -63)
    /// ```
    public init(model: PathLossModel) {
        self.init(calibration: Calibration(model: model))
    }

    /// Feeds one received advertisement. Non-finite RSSI is ignored (returns the estimate as
    /// of `time` without it).
    public mutating func update(time: Double, rssi: Double) -> RangeEstimate {
        guard rssi.isFinite, time.isFinite else { return noSample(at: time) }
        let interval = time - lastSampleTime
        if interval > stalenessLimit { forgetMotion() }
        if interval >= 0 && interval <= Self.intervalCap {
            typicalInterval = typicalInterval == 0
                ? interval : typicalInterval + Self.intervalAdaptation * (interval - typicalInterval)
        }
        lastSampleTime = max(lastSampleTime, time)
        let level = filter.update(time: time, rssi: rssi)
        let trend = trendEstimator.update(time: time, rssi: rssi, level: level, noiseSigma: filter.noiseSigma)
        let touch = touchDetector.update(time: time, rssi: rssi, level: level)
        let zone = zones.update(level: level)
        return RangeEstimate(time: time, rssi: rssi, filteredRSSI: level,
                             distance: calibration.model.distance(forRSSI: level),
                             zone: touch ? .touch : zone, trend: trend, touch: touch)
    }

    /// The estimate at `time` when no advertisement arrived (call it on a timer): unchanged
    /// while the signal is fresh; zone and trend `unknown` and touch off once it is stale.
    public mutating func noSample(at time: Double) -> RangeEstimate {
        let level = filter.level
        let base = RangeEstimate(time: time, rssi: nil, filteredRSSI: level,
                                 distance: level.isNaN ? .nan : calibration.model.distance(forRSSI: level),
                                 zone: .unknown, trend: .unknown, touch: false)
        guard filter.isInitialised, !isStale(at: time) else {
            forgetMotion()
            return base
        }
        var fresh = base
        fresh.trend = trendEstimator.trend
        fresh.touch = touchDetector.isTouching
        fresh.zone = fresh.touch ? .touch : zones.zone
        return fresh
    }

    /// Adopts a touch level learnt after the ranger started (the pair's line from the way in,
    /// `ApproachLine`). Touch evidence gathered against the old level is dropped, so a plateau
    /// must qualify again at the new one.
    public mutating func adoptTouchLevel(_ threshold: Double) {
        guard threshold.isFinite else { return }
        touchDetector = TouchDetector(threshold: threshold, parameters: touchDetector.parameters)
    }

    /// Whether, at `time`, the signal has been silent too long to be trusted.
    public func isStale(at time: Double) -> Bool { !(time - lastSampleTime <= stalenessLimit) }

    /// Current silence limit, s: `staleAfter` or `missedSamples` typical intervals.
    public var stalenessLimit: Double { max(staleAfter, Self.missedSamples * typicalInterval) }

    /// A silence longer than `stalenessLimit`: motion and touch evidence are void; the level is
    /// kept (its uncertainty grows with the gap, so the next samples take over quickly).
    private mutating func forgetMotion() {
        trendEstimator.reset()
        touchDetector.reset()
        zones.reset()
    }
}
