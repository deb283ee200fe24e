/// Whether the passenger is getting closer to the beacon.
public enum Trend: String, Sendable, CaseIterable {
    case closer
    case farther
    /// Enough signal, but no confident direction: moving slowly, standing, or too noisy to say.
    case steady
    /// Warming up, after a gap, or no recent signal.
    case unknown
}

/// Direction from the slope of recent RSSI, issued only when the slope is confidently non-zero.
///
/// A wrong "closer" can walk a blind passenger into traffic, so this abstains unless a
/// t-test on the least-squares slope of the last `window` seconds clears `confidence`. Samples
/// are first clipped to ±2σ around the filtered level so single fades cannot tilt the line,
/// and the slope's error is inflated for autocorrelated residuals (slow multipath drift looks
/// like motion to a naive test). A short window that confidently disagrees retracts an issued
/// direction at once (a turn-around is announced as "steady" within about a second).
public struct TrendEstimator: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// Seconds of signal the slope is fitted over. Four seconds of walking cover ~4 m, dozens
        /// of multipath fades (wavelength 12.5 cm), which average out; shorter windows
        /// issued fewer right answers per wrong one on real and synthetic walks.
        public var window = 4.0
        /// Window of the fast check that retracts an issued direction, s.
        public var retractWindow = 1.5
        /// t-statistic to issue a direction (one-sided false-issue rate ≈0.1 % for white noise).
        public var confidence = 3.0
        /// t-statistic below which an issued direction is withdrawn (hysteresis: no flicker).
        public var keepConfidence = 2.0
        /// t-statistic of the fast window, against the issued direction, that retracts it.
        public var retractConfidence = 2.0
        /// Fewest samples and shortest span for any verdict.
        public var minimumSamples = 6
        public var minimumSpan = 1.0
        /// A silence longer than this restarts the estimate, s.
        public var maxGap = 2.5
        /// Clip samples to this many σ around the filtered level before fitting.
        public var clip = 2.0
        /// Most samples held (bounds memory and cost; 64 covers 4 s at 16 Hz).
        public var capacity = 64

        public init() {}
        public static let `default` = Parameters()
    }

    public let parameters: Parameters
    public private(set) var trend: Trend = .unknown
    /// Last fitted slope, dB/s (positive: stronger, closer), and its t-statistic.
    public private(set) var slope = 0.0
    public private(set) var tStatistic = 0.0

    private var line: SlidingLineFit

    public init(parameters: Parameters = .default) {
        self.parameters = parameters
        line = SlidingLineFit(window: parameters.window, capacity: parameters.capacity, maxGap: parameters.maxGap)
    }

    /// Adds a raw sample with the filter's level and noise σ at that time; returns the trend.
    public mutating func update(time: Double, rssi: Double, level: Double, noiseSigma: Double) -> Trend {
        guard rssi.isFinite, level.isFinite, time.isFinite else { return trend }
        let bound = parameters.clip * noiseSigma
        let value = min(level + bound, max(level - bound, rssi))
        line.append(time: time, value: value)
        guard line.count >= parameters.minimumSamples, let fit = line.fit(), fit.span >= parameters.minimumSpan else {
            trend = .unknown
            slope = 0
            tStatistic = 0
            return trend
        }
        slope = fit.slope
        tStatistic = fit.t
        trend = decide(t: fit.t)
        if trend == .closer || trend == .farther, let check = line.fitRecent(seconds: parameters.retractWindow),
           check.count >= parameters.minimumSamples, check.span >= parameters.minimumSpan {
            let against = trend == .closer ? -check.t : check.t
            if against > parameters.retractConfidence { trend = .steady }
        }
        return trend
    }

    private func decide(t: Double) -> Trend {
        switch trend {
        case .closer where t >= parameters.keepConfidence: return .closer
        case .farther where -t >= parameters.keepConfidence: return .farther
        default:
            if t >= parameters.confidence { return .closer }
            if -t >= parameters.confidence { return .farther }
            return .steady
        }
    }

    /// Forgets all samples (signal lost).
    public mutating func reset() {
        line.reset()
        trend = .unknown
        slope = 0
        tStatistic = 0
    }
}
