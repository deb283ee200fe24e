#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A robust, time-aware Kalman filter for one beacon's RSSI.
///
/// State: level (dBm) and rate (dB/s), with the rate slowly forgotten between samples. Time
/// steps come from the timestamps, so irregular rates (1–10 Hz) and gaps are handled: the
/// level's uncertainty grows with the gap and the next sample is trusted accordingly.
/// Robustness, in the order a sample meets it:
/// - a two-sided CUSUM of clipped, normalised innovations re-initialises the filter at the
///   median of the run of samples that pushed it: several agreeing innovations mean the beacon
///   really moved, so the filter jumps instead of crawling (settles in 0.3–0.4 s at 10 Hz);
///   Drops are the exception while the signal is *carried*: a phone in a hand or pocket sees
///   body-shadow fades of 10–20 dB lasting 0.5–3 s, which are sample for sample a step away.
///   Once a drop has come back within `calmTime`, a downward run must last `fadeHoldThreshold`
///   (longer than a body fade) before the level follows it; a signal that has been calm for
///   `calmTime` (a resting phone) follows drops at once again. Rises are always followed fast;
/// - innovations beyond `gate` σ (single-packet spikes, deep fades) do not move the level;
/// - the rest update through a Huber-clipped innovation, which makes the level median-like
///   (multipath fades are skewed: deep short drops, few peaks);
/// - right after (re)initialisation the level is the median of the samples seen so far.
public struct RSSIFilter: Sendable {
    /// Tuning. Defaults are reasoned in the comments; see BENCHMARKS.md for their effect.
    public struct Parameters: Sendable, Equatable {
        /// Level acceleration noise density, dB²/s³. Small: at rest the level should be calm
        /// (real jumps are caught by the CUSUM); 0.03 still lets the rate state follow a walker.
        public var processNoise = 0.03
        /// Lower bound of the measurement σ, dB: RSSI is reported in whole dB, and a perfectly
        /// steady signal must not make the gates vanish.
        public var noiseFloor = 1.0
        /// Measurement σ assumed before any data, dB: typical BLE packet-to-packet spread.
        public var initialNoise = 2.0
        /// Innovations beyond this many σ are ignored as spikes (99.7 % of Gaussian noise passes).
        public var gate = 3.0
        /// Huber clipping point in σ (the classic 1.345–1.5 keeps ~95 % Gaussian efficiency).
        public var huber = 1.5
        /// CUSUM slack in σ: the textbook value for detecting shifts of ≥ 1 σ.
        public var cusumSlack = 0.5
        /// CUSUM alarm level in σ. With innovations clipped at `gate`, a large step needs four
        /// agreeing samples and a 1.5 σ shift about nine; white noise essentially never alarms.
        public var cusumThreshold = 8.0
        /// Weight of each new innovation in the running mean-absolute-deviation noise scale
        /// (≈20 samples of memory). Innovations enter clipped at `gate` σ so spikes cannot
        /// inflate it. A running median of |innovation| was tried: on herald's whole-dB data it
        /// shrank the gates and re-initialised more often (jitter 0.47 vs 0.415 dB).
        public var noiseAdaptation = 0.05
        /// How long the rate persists without evidence, s (a walker's heading lasts seconds).
        public var rateMemory = 3.0
        /// Samples after (re)initialisation whose running median is the level: 1.6 s at 10 Hz,
        /// enough for a stable median before the Kalman update takes over from it.
        public var warmupSamples = 16
        /// Most recent samples of a CUSUM run used for the re-initialised level (a run of a
        /// large step is four samples long; five leaves room for one stray among them).
        public var reinitSamples = 5
        /// Longest gap, s, over which uncertainty keeps growing (after that, fully uncertain).
        public var maxGap = 30.0
        /// CUSUM alarm level in σ for drops while the signal is carried: clipped innovations add
        /// at most `gate − cusumSlack` = 2.5 per sample, so 80 holds a drop for ≥ 3.2 s at 10 Hz,
        /// just past the longest body fade (0.5–3 s).
        public var fadeHoldThreshold = 80.0
        /// Seconds without a fade (a drop that came back) after which the signal counts as
        /// resting and drops are followed at once. A new filter starts resting: the first fade
        /// is followed (and marks the signal carried), so a touch that ends in a fresh filter ends
        /// at once and a retreat is heard at once. Must stay below a resting position's length
        /// (ranging-eval steps after 20 s at one position).
        public var calmTime = 15.0
        /// A held drop is over when a sample comes back within this many σ below the level.
        public var fadeRecovery = 1.0
        /// A drop that was followed counts as a fade if the level rises back within this time,
        /// s, by at least half its depth.
        public var fadeWindow = 3.5

        /// The tuned defaults (each documented above).
        public init() {}
        /// The parameters the guide and `ridebeacon range` use.
        public static let `default` = Parameters()
    }

    /// The tuning this filter runs with.
    public let parameters: Parameters
    /// Filtered level, dBm (NaN before the first sample).
    public private(set) var level = Double.nan
    /// Level rate, dB/s (positive: getting stronger).
    public private(set) var rate = 0.0
    /// Time of the last sample, s.
    public private(set) var lastTime = -Double.infinity
    /// Number of times the CUSUM re-initialised the filter.
    public private(set) var reinitialisations = 0

    private var p00 = 0.0, p01 = 0.0, p11 = 0.0
    private var meanAbsInnovation: Double
    private var cusumUp = 0.0, cusumDown = 0.0
    private var decayStep = 0.0, decayFactor = 1.0
    private var run: RingBuffer<Double>
    private var warmup: SortedWindow
    /// A downward run is being held back as a possible body fade.
    private var holdingDrop = false
    private var lastFadeTime = -Double.infinity
    /// The last followed drop: when, and the level before it (to recognise its return).
    private var droppedAt = -Double.infinity
    private var levelBeforeDrop = Double.nan

    /// A filter with no level yet.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters
        // E|x| = σ·√(2/π) for Gaussian noise.
        meanAbsInnovation = parameters.initialNoise / Self.sigmaPerMeanAbs
        run = RingBuffer(capacity: max(1, parameters.reinitSamples), filler: 0)
        warmup = SortedWindow(capacity: max(1, parameters.warmupSamples))
    }

    static let sigmaPerMeanAbs = 1.2533

    /// Whether a first sample has set the level.
    public var isInitialised: Bool { !level.isNaN }
    /// Robust estimate of the packet-to-packet RSSI noise σ, dB.
    public var noiseSigma: Double { max(parameters.noiseFloor, Self.sigmaPerMeanAbs * meanAbsInnovation) }
    /// Variance of the level estimate, dB².
    public var levelVariance: Double { p00 }
    /// Whether drops are currently held back as body fades (a fade came back within `calmTime`).
    public func isCarried(at time: Double) -> Bool { time - lastFadeTime < parameters.calmTime }

    /// Feeds one RSSI sample and returns the filtered level (dBm).
    @discardableResult
    public mutating func update(time: Double, rssi: Double) -> Double {
        guard rssi.isFinite, time.isFinite else { return level }
        guard isInitialised else {
            lastTime = time
            restart(at: rssi, samples: 1)
            warmup.insert(rssi)
            return level
        }
        predict(to: time)
        let r = noiseSigma * noiseSigma
        let s = p00 + r
        let innovation = rssi - level
        let rootS = s.squareRoot()
        let normalised = innovation / rootS
        let clipped = min(parameters.gate, max(-parameters.gate, normalised))
        cusumUp = max(0, cusumUp + clipped - parameters.cusumSlack)
        cusumDown = max(0, cusumDown - clipped - parameters.cusumSlack)
        if cusumUp == 0 && cusumDown == 0 { run.removeAll() } else { run.append(rssi) }
        let dropThreshold = isCarried(at: time) ? parameters.fadeHoldThreshold : parameters.cusumThreshold
        if holdingDrop && (cusumDown == 0 || normalised > -parameters.fadeRecovery) {
            // The held drop came back: it was a fade, and the next ones will be held too.
            holdingDrop = false
            lastFadeTime = time
            cusumDown = 0
            run.removeAll()
        } else if cusumDown > parameters.cusumThreshold {
            holdingDrop = true
        }
        if cusumUp > parameters.cusumThreshold || cusumDown > dropThreshold {
            let previous = level, dropped = cusumDown > dropThreshold
            reinitialiseFromRun()
            noteFollowedJump(at: time, from: previous, dropped: dropped)
            return level
        }
        // A held drop must neither widen the gates nor pull the level down.
        if !holdingDrop {
            meanAbsInnovation += parameters.noiseAdaptation
                * (min(abs(innovation), parameters.gate * noiseSigma) - meanAbsInnovation)
        }
        if abs(normalised) <= parameters.gate && !(holdingDrop && innovation < 0) {
            let limit = parameters.huber * rootS
            let used = min(limit, max(-limit, innovation))
            let inverseS = 1 / s
            let k0 = p00 * inverseS, k1 = p01 * inverseS
            level += k0 * used
            rate += k1 * used
            let (o00, o01, o11) = (p00, p01, p11)
            p00 = (1 - k0) * o00
            p01 = (1 - k0) * o01
            p11 = o11 - k1 * o01
        }
        if !warmup.isFull {
            // Spikes join the median too: a median shrugs them off, and early on the gate is
            // not yet trustworthy.
            warmup.insert(rssi)
            level = warmup.median
            p00 = min(p00, Self.medianVarianceFactor * r / Double(warmup.count))
            // Keep the covariance positive semi-definite after shrinking p00 alone.
            let bound = (p00 * p11).squareRoot()
            p01 = min(bound, max(-bound, p01))
        }
        return level
    }

    /// After a followed drop, remembers it; after a followed rise that undoes at least half of
    /// a drop from less than `fadeWindow` ago, records a fade (the signal is being carried).
    private mutating func noteFollowedJump(at time: Double, from previous: Double, dropped: Bool) {
        holdingDrop = false
        if dropped {
            droppedAt = time
            levelBeforeDrop = previous
        } else if time - droppedAt <= parameters.fadeWindow
                    && level >= levelBeforeDrop - 0.5 * (levelBeforeDrop - previous) {
            lastFadeTime = time
            droppedAt = -.infinity
        }
    }

    /// Variance of a sample median relative to the mean's: π/2 for Gaussian data.
    static let medianVarianceFactor = 1.5708

    /// Advances the state to `time` without a measurement (the level extrapolates with the
    /// decaying rate, its uncertainty grows).
    private mutating func predict(to time: Double) {
        let dt = max(0, time - lastTime)
        lastTime = max(lastTime, time)
        guard dt > 0 else { return }
        // Samples mostly arrive at a steady rate: reuse the last decay rather than call exp
        // (timestamps like i·0.1 differ in the last bits, hence the tolerance).
        if abs(dt - decayStep) > 1e-9 * dt {
            decayStep = dt
            decayFactor = exp(-dt / parameters.rateMemory)
        }
        let decay = decayFactor
        let gain = parameters.rateMemory * (1 - decay)  // ∫ rate over dt
        level += rate * gain
        rate *= decay
        let n00 = p00 + 2 * gain * p01 + gain * gain * p11
        let n01 = decay * (p01 + gain * p11)
        let n11 = decay * decay * p11
        let g = min(dt, parameters.maxGap), q = parameters.processNoise
        p00 = n00 + q * g * g * g / 3
        p01 = n01 + q * g * g / 2
        p11 = n11 + q * g
    }

    private mutating func reinitialiseFromRun() {
        warmup.removeAll()
        for i in 0..<run.count { warmup.insert(run[i]) }
        reinitialisations += 1
        restart(at: warmup.median, samples: warmup.count)
    }

    private mutating func restart(at value: Double, samples: Int) {
        level = value
        rate = 0
        let r = noiseSigma * noiseSigma
        p00 = Self.medianVarianceFactor * r / Double(max(1, samples))
        p01 = 0
        // Rate prior: (1 dB/s)², a walker at a few metres changes RSSI by about that much.
        p11 = 1
        cusumUp = 0
        cusumDown = 0
        run.removeAll()
    }

    /// Forgets everything (a new beacon, or a long silence).
    public mutating func reset() {
        self = RSSIFilter(parameters: parameters)
    }
}
