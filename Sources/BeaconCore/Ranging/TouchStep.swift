/// Detects a touch from the step the signal makes over this device's own last seconds, not
/// from one absolute level (issue 34).
///
/// Phones at low transmit power (herald's Android transmitters at `ADVERTISE_TX_POWER_LOW`)
/// read −47…−77 dBm at contact where iPhone pairs read −23…−39 dBm, so a level chosen for
/// every phone is never reached by some. What they share is the jump when the phones meet: the level of the
/// last moment stands `rise` dB above the median of the seconds before it. The jump must be a
/// plateau (all but a fifth of the recent reports clear it, over at least `plateauReports`
/// reports and `plateau` seconds), so a single reflection or a burst of two cannot pass, and
/// the baseline is a median, so one deep fade in it does not make an ordinary level look like
/// a step, and steady (`drift`), so the end of a brisk walk in is not one. A step alone is not enough: out of a multipath null (a phone held still for
/// seconds a hand's width from a peak) the signal jumps 10–25 dB at any distance, both ways at
/// once. So the new level must also clear, by `above` dB, the strongest level this device held
/// over the last `history` seconds (their 90th percentile): walking in, that is the level at
/// one to a few metres, and only contact stands far above it. Touch then lasts while the recent median stays within `release` dB of the highest
/// level it reached; a silence is handled by the ranger (`reset()`).
///
/// Both devices judge their own step; the server pairs their proofs (`MutualTouchRule`), so a
/// touch counts only when both saw a step at the same time.
public struct TouchStep: Sendable {
    /// The step rule's tuning; each value says where it comes from.
    public struct Parameters: Sendable, Equatable {
        /// dB the recent level must stand above the baseline. `rise`, `above` and `history` are
        /// chosen on herald pairs (tests 4, 5, 7–9, 19, 22) by `TouchEventBenchmark --step`:
        /// the most mutual touches within 2 s with no mutual false touch (BENCHMARKS.md, "Touch
        /// from the step").
        public var rise = 8.0
        /// Seconds of recent reports that must clear the step (at least `plateauReports` of them).
        public var plateau = 0.3
        /// Fewest recent reports judged; with ≤ 4 of them every one must clear the step.
        public var plateauReports = 3
        /// Seconds before the recent reports whose median is the baseline.
        public var baseline = 3.0
        /// dB the baseline's newer half may stand above its older half: the step must follow a
        /// pause (she stopped at arm's length and reached out). Walking in briskly the level
        /// climbs 10 dB or more over those seconds (0.8 m/s from 3 m to 1 m at n = 2), and the
        /// end of such a walk, at 30 cm, is otherwise a step like a touch (it was, in the guide's
        /// scripted 0.8 m/s approach). Herald has no walk into its steps; there 4 dB costs 4
        /// points of detection against no limit (the benchmark's grid).
        public var drift = 4.0
        /// Fewest baseline reports for a step to be judged at all.
        public var baselineReports = 3
        /// Seconds of history whose strongest level (90th percentile) the touch must clear.
        public var history = 20.0
        /// dB the recent level must stand above that strongest level.
        public var above = 6.0
        /// dB below the touch's highest recent median at which it ends: three times the herald
        /// contact positions' report spread (≤ 2.3 dB), and half the smallest step judged.
        public var release = 6.0

        /// The tuned defaults.
        public init() {}
        /// The parameters the guide and the driver's device use.
        public static let `default` = Parameters()
    }

    /// Reports remembered: `history` seconds at 50 reports a second (a 20 ms advertiser heard
    /// on every report); at faster rates the history is just shorter.
    static let capacity = 1024

    /// The tuning this detector runs with.
    public let parameters: Parameters
    /// Whether the devices touch now.
    public private(set) var isTouching = false
    /// The highest recent median while touching (dBm; −∞ when not touching).
    public private(set) var touchLevel = -Double.infinity
    private var times: RingBuffer<Double>
    private var levels: RingBuffer<Double>
    /// Preallocated room to sort a window in (no allocation per report).
    private var scratch: ContiguousArray<Double>

    /// A detector with no history, not touching.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters
        times = RingBuffer(capacity: Self.capacity, filler: 0)
        levels = RingBuffer(capacity: Self.capacity, filler: 0)
        scratch = ContiguousArray(repeating: 0, count: Self.capacity)
    }

    /// Feeds one report; returns whether the devices touch. Reports must come in time order
    /// (an older one is ignored); non-finite values are ignored.
    public mutating func update(time: Double, rssi: Double) -> Bool {
        guard time.isFinite, rssi.isFinite, time >= (times.newest ?? -.infinity) else { return isTouching }
        times.append(time)
        levels.append(rssi)
        let recentStart = recentStartIndex(now: time)
        let recentCount = levels.count - recentStart
        if isTouching {
            let median = median(from: recentStart, to: levels.count)
            touchLevel = max(touchLevel, median)
            if median < touchLevel - parameters.release { isTouching = false; touchLevel = -.infinity }
            return isTouching
        }
        guard recentCount >= parameters.plateauReports else { return false }
        // Baseline: the reports in the `baseline` seconds before the recent ones.
        let recentTime = times[recentStart]
        var baselineStart = recentStart
        while baselineStart > 0 && recentTime - times[baselineStart - 1] <= parameters.baseline { baselineStart -= 1 }
        guard recentStart - baselineStart >= parameters.baselineReports else { return false }
        // All but a fifth of the recent reports must clear the step.
        let tolerated = recentCount / 5
        let low = orderStatistic(tolerated, from: recentStart, to: levels.count)
        // Cheap test first: a step over the baseline's lowest report is needed for one over its median.
        var lowest = Double.infinity
        for i in baselineStart..<recentStart { lowest = min(lowest, levels[i]) }
        guard low - lowest >= parameters.rise else { return false }
        let base = median(from: baselineStart, to: recentStart)
        guard low - base >= parameters.rise else { return false }
        let middle = (baselineStart + recentStart) / 2
        guard median(from: middle, to: recentStart) - median(from: baselineStart, to: middle) <= parameters.drift else { return false }
        var historyStart = baselineStart
        while historyStart > 0 && recentTime - times[historyStart - 1] <= parameters.history { historyStart -= 1 }
        let ceiling = orderStatistic(Int(0.9 * Double(recentStart - historyStart - 1)), from: historyStart, to: recentStart)
        guard low - ceiling >= parameters.above else { return false }
        isTouching = true
        touchLevel = median(from: recentStart, to: levels.count)
        return true
    }

    /// Not touching, nothing remembered (a new signal, or one silent too long).
    public mutating func reset() {
        isTouching = false
        touchLevel = -.infinity
        times.removeAll()
        levels.removeAll()
    }

    /// Index of the oldest report in the recent window: the last `plateau` seconds, widened
    /// to `plateauReports` reports when they hold fewer, and cut to the newest `maximumRecent`
    /// (above 100 reports a second the plateau is then shorter than `plateau`).
    private func recentStartIndex(now: Double) -> Int {
        let first = max(0, levels.count - Self.maximumRecent)
        var start = levels.count - 1
        while start > first && now - times[start - 1] <= parameters.plateau { start -= 1 }
        return min(start, max(0, levels.count - parameters.plateauReports))
    }

    /// Most reports judged as the recent window.
    static let maximumRecent = 32

    private mutating func median(from start: Int, to end: Int) -> Double {
        let n = end - start
        guard n > 0 else { return .nan }
        let upper = orderStatistic(n / 2, from: start, to: end)
        return n % 2 == 1 ? upper : 0.5 * (orderStatistic(n / 2 - 1, from: start, to: end) + upper)
    }

    /// The `k`-th smallest (0-based) of levels[start..<end], by selection in the preallocated
    /// scratch (linear on average, and allocates nothing).
    private mutating func orderStatistic(_ k: Int, from start: Int, to end: Int) -> Double {
        let n = end - start
        for j in 0..<n { scratch[j] = levels[start + j] }
        let k = min(max(0, k), n - 1)
        var lo = 0, hi = n - 1
        while lo < hi {
            let pivot = scratch[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while scratch[i] < pivot { i += 1 }
                while scratch[j] > pivot { j -= 1 }
                if i <= j { scratch.swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return scratch[k]
    }
}
