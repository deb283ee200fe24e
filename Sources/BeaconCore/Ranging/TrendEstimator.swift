import Foundation

/// Whether the passenger is getting closer to the beacon.
public enum Trend: String, Sendable, CaseIterable {
    /// The signal says the passenger is getting closer.
    case closer
    /// The signal says the passenger is moving away.
    case farther
    /// Enough signal, but no confident direction: moving slowly, standing, or too noisy to say.
    case steady
    /// Warming up, after a gap, or no recent signal.
    case unknown
}

/// Direction from the slope of recent RSSI, issued only when the slope is confidently non-zero.
///
/// A wrong "closer" can walk a blind passenger into traffic, so this abstains unless a
/// t-test on a least-squares slope clears its threshold. Two windows may issue: the last
/// `middleWindow` (3 s) seconds, which follows stops, starts and turns, and, when that one has
/// no confident answer, the last `window` (12 s), which averages more fades and hears a slow or
/// distant walker; the shorter one speaks first, because after a turn the longer one still
/// remembers the old way (and a change point restarts it). Thresholds are Student-t quantiles
/// at each window's sample size; the long window's is set from a budget of false directions
/// per second and the report rate it observes (`longFalseRate`), so a 10 Hz phone is held to
/// the same false cues a minute as a 2.2 Hz receiver. Samples are first clipped to ±2σ around the current line so single
/// fades cannot tilt it, and the slopes' errors are inflated for serially correlated noise
/// (fading that drifts over a second looks like motion to a naive test; see `varianceFactor`).
/// An issued direction is kept while either window still clears `keepConfidence` for it, and a
/// `retractWindow` (1.5 s) fit that confidently disagrees withdraws it at once (a turn-around
/// becomes "steady" within about a second).
public struct TrendEstimator: Sendable {
    /// The estimator's tuning; each value says where it comes from.
    public struct Parameters: Sendable, Equatable {
        /// Seconds of signal the long slope is fitted over. On the real philotuxo walks (2.2
        /// reports/s, mostly under 0.4 m/s) 12 s with Student-t thresholds doubled the moving time
        /// with a direction over the earlier 6 s at higher precision; 15–20 s lost precision
        /// (BENCHMARKS.md, part 4).
        public var window = 12.0
        /// The shorter window that may also issue, s (about the 1.5 s over which direction is
        /// judged, doubled to hold enough fades).
        public var middleWindow = 3.0
        /// Window of the fast check that retracts an issued direction, s.
        public var retractWindow = 1.5
        /// t-statistic to issue a direction. 3.5 rather than 3: two windows are tested, and the
        /// union of two tests at 3.5 issues less often at rest than one at 3 (one-sided
        /// false-issue rate ≈0.02 % per test for white noise).
        public var confidence = 3.5
        /// t-statistic for the long window alone to issue (nil: `confidence`). The long window
        /// averages more fades, so its slope is the better-founded of the two.
        public var longConfidence: Double? = nil
        /// Change point: when the long window leans one way (|t| ≥ `keepConfidence`) and the
        /// middle window's t-statistic against it reaches this, the long window restarts from
        /// the middle window's samples (nil: never). A turn-around then stops feeding the old
        /// way's ramp into the long slope, which would otherwise re-issue it for seconds.
        public var changeConfidence: Double? = 2.5
        /// When the retract window withdraws a direction, the long window also restarts from
        /// the middle window's samples: a turn-around heard by the fast check is not re-issued
        /// by the old way's ramp a moment later.
        public var restartOnRetract = true
        /// Read `confidence` and `longConfidence` as normal quantiles and compare each window's
        /// t-statistic with the Student-t quantile of the same tail probability at the window's
        /// effective degrees of freedom (samples ÷ `varianceFactor` − 2). A 4 s window holds
        /// ~9 reports at 2.2 Hz (real receivers), where t ≥ 3.5 happens ~1 % of the time on
        /// noise instead of the 0.02 % meant; at 10 Hz the correction is a few tenths.
        public var studentize = true
        /// False directions a second the long window may issue on noise (nil: use
        /// `longConfidence`). Its threshold is then the Student-t quantile, at the window's
        /// effective degrees of freedom, of the one-sided tail probability
        /// `longFalseRate` ÷ the report rate observed in the window: a fixed false-alarm
        /// budget per unit time whatever the receiver's rate (t ≈ 2.5 at the real receivers'
        /// 2.2 reports/s, ≈ 3 at 10/s, where the slope's error is √5 smaller).
        /// 0.0137 (t 2.5 at 2.2/s): measured on the real walks and static traces against
        /// 0.01–0.05, and on the guided walks (BENCHMARKS.md, part 4).
        public var longFalseRate: Double? = 0.0137
        /// The same for the middle window (nil: `confidence`, studentized if `studentize`).
        public var middleFalseRate: Double? = nil
        /// Lowest normal quantile the false-direction budgets may set (nil: none). A slow
        /// scanner's few reports a second would otherwise buy a lenient per-report test.
        public var falseRateFloor: Double? = 2.25
        /// Largest variance factor the Student-t degrees of freedom are divided by (nil: none).
        /// The factor is learnt from residuals about the line, and the curvature of a fast ramp
        /// (the last metre to the car) inflates it to 5–20: dividing the sample count by that as
        /// well as the t-statistic by its root would silence the window exactly on the ramp.
        public var dofFactorCap: Double? = 2
        /// After an issued direction lapses, the same direction is not issued again for
        /// `retractWindow` seconds: one noise excursion would otherwise be announced twice.
        public var relapseHoldOff = true
        /// t-statistic below which an issued direction is withdrawn (hysteresis: no flicker).
        public var keepConfidence = 2.0
        /// t-statistic of the fast window, against the issued direction, that retracts it.
        public var retractConfidence = 2.0
        /// Fewest samples and shortest span for any verdict. When samples come slower than
        /// `minimumSamples` per `window`, the window stretches to hold them, up to
        /// `longestWindow` (a 1 Hz scanner then judges over ~6 s instead of never).
        public var minimumSamples = 6
        /// The least time a window must span, s.
        public var minimumSpan = 1.0
        /// The longest a window may stretch to hold `minimumSamples`, s.
        public var longestWindow = 16.0
        /// A silence longer than this, or than three typical intervals, restarts the estimate, s.
        public var maxGap = 2.5
        /// Clip samples to this many σ (the filter's packet noise) around the line before fitting.
        public var clip = 2.0
        /// Most samples held (bounds memory and cost; 128 covers 6 s at 20 Hz).
        public var capacity = 256
        /// Weight of each residual in the noise-correlation estimate: ≈100 samples (10 s at
        /// 10 Hz) of memory, long enough for stable lag-2 correlations, short enough to follow
        /// a change of surroundings.
        public var correlationAdaptation = 0.01

        /// The tuned defaults.
        public init() {}
        /// The parameters the guide uses.
        public static let `default` = Parameters()

        /// The defaults before issue 16's part 4 (6 s and 3 s windows at t ≥ 3.5 read as
        /// normal quantiles): the baseline the real-walk benchmark and the tests compare with.
        public static let previousDefault: Parameters = {
            var p = Parameters()
            p.window = 6
            p.longestWindow = 10
            p.capacity = 128
            p.studentize = false
            p.longFalseRate = nil
            p.falseRateFloor = nil
            p.changeConfidence = nil
            p.restartOnRetract = false
            p.relapseHoldOff = false
            p.dofFactorCap = nil
            return p
        }()
    }

    /// The tuning this estimator runs with.
    public let parameters: Parameters
    public private(set) var trend: Trend = .unknown
    /// Last fitted slope, dB/s (positive: stronger, closer), and its t-statistic.
    public private(set) var slope = 0.0
    public private(set) var tStatistic = 0.0

    private var line: SlidingLineFit
    /// Exponentially weighted lag-0/1/2 products of residuals from the line, and the last two
    /// residuals: the noise's correlation structure over the last ~100 samples.
    private var c0 = 0.0, c1 = 0.0, c2 = 0.0
    private var r1 = 0.0, r2 = 0.0
    private var residualCount = 0
    private var cachedFactor = 1.0
    private var lastTime = -Double.infinity, typicalInterval = 0.0
    /// The direction last withdrawn, and when (`relapseHoldOff`).
    private var lapsed = (direction: 0, time: -Double.infinity)
    /// The last fitted line, as its value at `lineTime` and its slope.
    private var lineTime = -Double.infinity, lineValue = 0.0, lineSlope = 0.0

    /// An estimator with no samples: the trend is `.unknown` until it has seen enough.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters
        line = SlidingLineFit(window: parameters.window, minimumCount: parameters.minimumSamples,
                              longestWindow: parameters.longestWindow, middleWindow: parameters.middleWindow,
                              recentWindow: parameters.retractWindow,
                              capacity: parameters.capacity, maxGap: parameters.maxGap)
    }

    /// Adds a raw sample with the filter's level and noise σ at that time; returns the trend.
    public mutating func update(time: Double, rssi: Double, level: Double, noiseSigma: Double) -> Trend {
        guard rssi.isFinite, level.isFinite, time.isFinite else { return trend }
        noteInterval(time)
        // Clip around where the current line says the signal is (the filtered level lags a
        // walker's ramp, and clipping to it would flatten the very slope being measured).
        let bound = parameters.clip * noiseSigma
        let centre = lineTime.isFinite && time - lineTime <= parameters.maxGap
            ? lineValue + lineSlope * (time - lineTime) : level
        let value = min(centre + bound, max(centre - bound, rssi))
        line.append(time: time, value: value)
        let factor = cachedFactor
        var fitted = line.fit(varianceFactor: factor)
        var middle = usable(line.fitMiddle(varianceFactor: factor))
        if let change = parameters.changeConfidence, let long = fitted, let recent = middle, long.count > recent.count,
           abs(long.t) >= parameters.keepConfidence, long.t * recent.t < 0, abs(recent.t) >= change {
            line.keepNewest(recent.count)
            fitted = line.fit(varianceFactor: factor)
            middle = usable(line.fitMiddle(varianceFactor: factor))
        }
        if let fitted, line.count >= parameters.minimumSamples {
            lineTime = time
            lineValue = value - fitted.lastResidual
            lineSlope = fitted.slope
        } else {
            lineTime = -.infinity
        }
        // Noise correlation is learnt from residuals about the line (motion itself must not look
        // like correlated noise), and only while no direction is issued: during a walk the
        // curvature of the RSSI ramp would read as noise and mute the very trend announced.
        if let fitted, line.count >= parameters.minimumSamples, trend != .closer, trend != .farther {
            noteResidual(fitted.lastResidual)
        }
        guard line.count >= parameters.minimumSamples, let fit = fitted, fit.span >= parameters.minimumSpan else {
            trend = .unknown
            slope = 0
            tStatistic = 0
            return trend
        }
        slope = fit.slope
        tStatistic = fit.t
        var direction = decide(long: fit, middle: middle)
        // A retract window that confidently disagrees withdraws it at once.
        if direction != 0, let recent = usable(line.fitRecent(varianceFactor: factor)),
           -Double(direction) * recent.t > parameters.retractConfidence {
            direction = 0
            if parameters.restartOnRetract, let middle, fit.count > middle.count { line.keepNewest(middle.count) }
        }
        if direction == 0, trend == .closer || trend == .farther {
            lapsed = (trend == .closer ? 1 : -1, time)
        }
        if parameters.relapseHoldOff, direction != 0, direction == lapsed.direction,
           time - lapsed.time < parameters.retractWindow, trend != .closer, trend != .farther {
            direction = 0
        }
        trend = direction > 0 ? .closer : direction < 0 ? .farther : .steady
        return trend
    }

    /// Tracks the typical sample interval so that a slow scanner's ordinary spacing is not
    /// taken for a gap.
    private mutating func noteInterval(_ time: Double) {
        let interval = time - lastTime
        lastTime = time
        guard interval > 0, interval <= parameters.longestWindow else { return }
        typicalInterval = typicalInterval == 0 ? interval : typicalInterval + 0.1 * (interval - typicalInterval)
        line.maxGap = min(parameters.longestWindow, max(parameters.maxGap, 3 * typicalInterval))
    }

    /// Updates the noise correlation estimate with one residual.
    private mutating func noteResidual(_ r: Double) {
        let w = parameters.correlationAdaptation
        c0 += w * (r * r - c0)
        if residualCount >= 1 { c1 += w * (r * r1 - c1) }
        if residualCount >= 2 { c2 += w * (r * r2 - c2) }
        residualCount += 1
        r2 = r1
        r1 = r
        // The estimate has ~100 samples of memory: refreshing the factor every 8th sample
        // loses nothing and saves two divisions per sample.
        if residualCount & 7 == 1 { cachedFactor = varianceFactor }
    }

    /// How much serial correlation inflates the slope variance. Fading plus packet noise
    /// behaves like AR(1) (coefficient φ, share a) plus white noise: ρ1 = aφ, ρ2 = aφ², hence
    /// φ = ρ2/ρ1 and the long-run variance factor 1 + 2ρ1/(1 − φ). Estimated over ~100 samples
    /// rather than inside the window, where a few dozen give a biased-low, noisy ρ and an
    /// overconfident test (pure lag-1 AR(1) inside the window issued directions on 8–10 % of
    /// stationary samples with correlated fading; this keeps it near 1 %).
    public var varianceFactor: Double {
        guard c0 > 0, c1 > 0 else { return 1 }
        let rho1 = min(Self.maxCorrelation, c1 / c0)
        let phi = min(Self.maxCorrelation, max(0, c2 / c1))
        return 1 + 2 * rho1 / (1 - phi)
    }

    /// Correlations beyond this cannot be told apart from a trend on a window of a few seconds.
    static let maxCorrelation = 0.9

    private func usable(_ fit: SlidingLineFit.Fit?) -> SlidingLineFit.Fit? {
        guard let fit, fit.count >= parameters.minimumSamples, fit.span >= parameters.minimumSpan else { return nil }
        return fit
    }

    /// +1 (closer), −1 (farther) or 0: the fit's direction when its t-statistic clears `t`.
    private static func vote(_ fit: SlidingLineFit.Fit?, t: Double) -> Int {
        guard let fit else { return 0 }
        return fit.t >= t ? 1 : -fit.t >= t ? -1 : 0
    }

    /// The t-statistic with the upper tail probability that `z` has under a normal, for `dof`
    /// degrees of freedom (Cornish–Fisher expansion to 1/dof²; within a few % for dof ≥ 4, and
    /// larger still, so more cautious, below).
    static func studentQuantile(_ z: Double, dof: Double) -> Double {
        let v = max(1, dof), z2 = z * z
        return z + (z2 + 1) * z / (4 * v) + ((5 * z2 + 16) * z2 + 3) * z / (96 * v * v)
    }

    /// The upper-tail normal quantile: z with P(Z > z) = `p` (Acklam's rational approximation,
    /// relative error < 1.2e-9), for 0 < p < 1.
    static func normalQuantile(upper p: Double) -> Double {
        let q = min(max(p, 1e-300), 1 - 1e-16)
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                 -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        func tail(_ x: Double) -> Double {  // lower-tail quantile for x < 0.02425
            let r = (-2 * log(x)).squareRoot()
            return (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5])
                / ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1)
        }
        let lower = 1 - q  // the lower-tail probability of the same point
        if q < 0.02425 { return -tail(q) }
        if lower < 0.02425 { return tail(lower) }
        let x = lower - 0.5, r = x * x
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * x
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }

    /// The issuing threshold for `fit`: `z`, or its Student-t equivalent at the fit's effective
    /// sample size; with a false-direction budget per second (`falseRate`), the normal quantile
    /// of that budget ÷ the report rate observed in the window, studentized.
    private func threshold(_ z: Double, falseRate: Double? = nil, for fit: SlidingLineFit.Fit?) -> Double {
        guard let fit else { return z }
        var z = z
        if let falseRate, fit.count > 1, fit.span > 0 {
            let reportsPerSecond = Double(fit.count - 1) / fit.span
            z = max(parameters.falseRateFloor ?? 0, Self.normalQuantile(upper: min(0.1, falseRate / reportsPerSecond)))
        } else if !parameters.studentize {
            return z
        }
        let factor = min(parameters.dofFactorCap ?? .infinity, max(1, cachedFactor))
        return Self.studentQuantile(z, dof: Double(fit.count) / factor - 2)
    }

    /// +1 (closer), −1 (farther) or 0 from the two issuing windows and the direction held.
    private func decide(long: SlidingLineFit.Fit, middle: SlidingLineFit.Fit?) -> Int {
        // The shorter window speaks first: after a stop or a turn the longer one still
        // remembers the old way for seconds.
        var direction = Self.vote(middle, t: threshold(parameters.confidence, falseRate: parameters.middleFalseRate,
                                                       for: middle))
        // The long window's own threshold holds only while it reaches further back than the
        // middle one (after a change point it is no better founded).
        let longer = middle.map { long.count > $0.count } ?? true
        if direction == 0 {
            direction = Self.vote(long, t: longer
                ? threshold(parameters.longConfidence ?? parameters.confidence, falseRate: parameters.longFalseRate, for: long)
                : threshold(parameters.confidence, falseRate: parameters.middleFalseRate, for: long))
        }
        if direction == 0, trend == .closer || trend == .farther {
            let held = trend == .closer ? 1 : -1
            if Self.vote(middle, t: parameters.keepConfidence) == held
                || (Self.vote(long, t: parameters.keepConfidence) == held && Double(held) * (middle?.t ?? 0) >= 0) {
                direction = held
            }
        }
        return direction
    }

    /// Forgets the samples (signal lost). What was learnt about the noise's correlation is
    /// kept: the surroundings outlast a gap.
    public mutating func reset() {
        line.reset()
        residualCount = 0
        lineTime = -.infinity
        trend = .unknown
        slope = 0
        tStatistic = 0
    }
}
