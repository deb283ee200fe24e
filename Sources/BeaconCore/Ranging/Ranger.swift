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
    public var zone: ProximityZone
    public var trend: Trend
    public var touch: Bool
}

/// Turns one beacon's RSSI samples into filtered level, distance, zone, trend and touch.
/// Deterministic, and allocation-free per sample (fixed-size buffers made in `init`).
public struct Ranger: Sendable {
    /// No sample for this long makes zone and trend `unknown` and ends touch, s. The slowest
    /// scanners we have data from deliver about one advert every 4 s (phones in background);
    /// 5 s of silence therefore means the beacon is really missing, not just slow.
    public static let defaultStaleAfter = 5.0

    public let calibration: Calibration
    public let staleAfter: Double
    public private(set) var filter: RSSIFilter
    public private(set) var trendEstimator: TrendEstimator
    public private(set) var touchDetector: TouchDetector
    private var zones: ZoneClassifier
    private var lastSampleTime = -Double.infinity

    public init(calibration: Calibration,
                filter: RSSIFilter.Parameters = .default,
                trend: TrendEstimator.Parameters = .default,
                touch: TouchDetector.Parameters = .default,
                staleAfter: Double = Ranger.defaultStaleAfter) {
        self.calibration = calibration
        self.staleAfter = staleAfter
        self.filter = RSSIFilter(parameters: filter)
        self.trendEstimator = TrendEstimator(parameters: trend)
        self.touchDetector = TouchDetector(threshold: calibration.effectiveTouchRSSI, parameters: touch)
        self.zones = ZoneClassifier(model: calibration.model)
    }

    public init(model: PathLossModel) {
        self.init(calibration: Calibration(model: model))
    }

    /// Feeds one received advertisement. Non-finite RSSI is ignored (returns the estimate as
    /// of `time` without it).
    public mutating func update(time: Double, rssi: Double) -> RangeEstimate {
        guard rssi.isFinite, time.isFinite else { return noSample(at: time) }
        if time - lastSampleTime > staleAfter { forgetMotion() }
        lastSampleTime = max(lastSampleTime, time)
        let level = filter.update(time: time, rssi: rssi)
        let trend = trendEstimator.update(time: time, rssi: rssi, level: level, noiseSigma: filter.noiseSigma)
        let touch = touchDetector.update(rssi: rssi, level: level)
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
        guard filter.isInitialised, time.isFinite, time - lastSampleTime <= staleAfter else {
            forgetMotion()
            return base
        }
        var fresh = base
        fresh.trend = trendEstimator.trend
        fresh.touch = touchDetector.isTouching
        fresh.zone = fresh.touch ? .touch : zones.zone
        return fresh
    }

    /// Whether the last sample is older than `staleAfter` at `time`.
    public func isStale(at time: Double) -> Bool { !(time - lastSampleTime <= staleAfter) }

    /// A silence longer than `staleAfter`: motion and touch evidence are void; the level is
    /// kept (its uncertainty grows with the gap, so the next samples take over quickly).
    private mutating func forgetMotion() {
        trendEstimator.reset()
        touchDetector.reset()
        zones.reset()
    }
}
