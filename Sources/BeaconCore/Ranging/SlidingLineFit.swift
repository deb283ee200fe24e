/// Least-squares lines through the samples of the last `window` seconds (stretched to hold at
/// least `minimumCount` samples when they arrive slowly, up to `longestWindow`) and of the
/// last `recentWindow` seconds, with the slope's standard error inflated by a caller-supplied factor
/// for serially correlated noise (see `TrendEstimator.varianceFactor`). O(1) per sample:
/// running sums, re-based on the oldest sample every `capacity` appends so rounding cannot
/// accumulate.
struct SlidingLineFit: Sendable {
    struct Fit: Sendable {
        /// dB/s.
        var slope: Double
        /// slope / standard error, the error inflated for autocorrelated residuals.
        var t: Double
        var count: Int
        /// Seconds between the oldest and newest sample.
        var span: Double
        /// The newest sample's distance from the fitted line, dB.
        var lastResidual: Double
    }

    let window: Double
    let minimumCount: Int
    let longestWindow: Double
    let recentWindow: Double
    let middleWindow: Double
    /// A gap longer than this (s) starts the fit afresh: the samples before it describe a
    /// different moment.
    var maxGap: Double
    /// Smallest residual variance believed, dB²: RSSI comes in whole dB, so a run of identical
    /// readings must not make a tiny wobble look certain ((0.5 dB)², half a quantum).
    static let varianceFloor = 0.25

    struct Point: Sendable { var t: Double; var y: Double }

    private struct Sums: Sendable {
        var count = 0
        var t = 0.0, y = 0.0, tt = 0.0, ty = 0.0, yy = 0.0

        mutating func add(_ p: Point, sign: Double) {
            count += sign > 0 ? 1 : -1
            t += sign * p.t; y += sign * p.y
            tt += sign * p.t * p.t; ty += sign * p.t * p.y; yy += sign * p.y * p.y
        }
    }

    private var samples: RingBuffer<Point>
    private var origin = Point(t: 0, y: 0)
    /// Over all samples, and over the newest `middle.count` and `recent.count` of them.
    private var all = Sums(), middle = Sums(), recent = Sums()
    private var appendsSinceRebase = 0

    init(window: Double, minimumCount: Int, longestWindow: Double, middleWindow: Double? = nil,
         recentWindow: Double, capacity: Int, maxGap: Double) {
        self.window = window
        self.minimumCount = minimumCount
        self.longestWindow = max(window, longestWindow)
        self.recentWindow = min(window, recentWindow)
        self.middleWindow = min(window, max(self.recentWindow, middleWindow ?? window))
        self.maxGap = maxGap
        samples = RingBuffer(capacity: max(3, capacity), filler: Point(t: 0, y: 0))
    }

    var count: Int { samples.count }

    mutating func append(time: Double, value: Double) {
        if let last = samples.newest, time - last.t > maxGap { reset() }
        if samples.isFull { dropOldest() }
        if samples.isEmpty { origin = Point(t: time, y: value) }
        let p = relative(Point(t: time, y: value))
        all.add(p, sign: 1)
        middle.add(p, sign: 1)
        recent.add(p, sign: 1)
        samples.append(Point(t: time, y: value))
        while let first = samples.oldest, time - first.t > longestWindow
                || (time - first.t > window && samples.count > minimumCount) {
            dropOldest()
        }
        while middle.count > 1, time - samples[samples.count - middle.count].t > middleWindow {
            middle.add(relative(samples[samples.count - middle.count]), sign: -1)
        }
        while recent.count > 1, time - samples[samples.count - recent.count].t > recentWindow {
            recent.add(relative(samples[samples.count - recent.count]), sign: -1)
        }
        appendsSinceRebase += 1
        if appendsSinceRebase >= samples.capacity { rebase() }
    }

    /// Forgets all but the newest `count` samples (a change point: the older ones describe
    /// another motion).
    mutating func keepNewest(_ count: Int) {
        while samples.count > max(0, count) { dropOldest() }
    }

    mutating func reset() {
        samples.removeAll()
        all = Sums()
        middle = Sums()
        recent = Sums()
        appendsSinceRebase = 0
    }

    /// The fit over the whole window, or nil with fewer than three samples or no time spread.
    /// `varianceFactor` (≥ 1) inflates the slope variance for correlated residuals.
    /// (`mutating` only so callers pass the state by reference instead of copying it.)
    mutating func fit(varianceFactor: Double = 1) -> Fit? { fit(all, varianceFactor) }

    /// The fit over the last `middleWindow` seconds only (t, count and span only: slope and `lastResidual` left at 0).
    mutating func fitMiddle(varianceFactor: Double = 1) -> Fit? { lean(middle, varianceFactor) }

    /// The fit over the last `recentWindow` seconds only (t, count and span only: slope and `lastResidual` left at 0).
    mutating func fitRecent(varianceFactor: Double = 1) -> Fit? { lean(recent, varianceFactor) }

    /// The centred sums both fits start from, or nil with fewer than three samples, no time
    /// spread, or no spread in time after rounding.
    private struct Centred {
        var count: Int, span: Double, last: Point, inverseN: Double
        var stt: Double, sty: Double, syy: Double
    }

    @inline(__always)
    private func centred(_ sums: Sums) -> Centred? {
        let count = sums.count
        guard count >= 3, let last = samples.newest else { return nil }
        let first = samples[samples.count - count]
        guard last.t > first.t else { return nil }
        let inverseN = Self.reciprocal(count)
        let stt = sums.tt - sums.t * sums.t * inverseN
        guard stt > 0 else { return nil }
        return Centred(count: count, span: last.t - first.t, last: last, inverseN: inverseN, stt: stt,
                       sty: sums.ty - sums.t * sums.y * inverseN, syy: sums.yy - sums.y * sums.y * inverseN)
    }

    /// Arranged for two divisions and one square root: it runs on every sample of every beacon.
    private mutating func fit(_ sums: Sums, _ factor: Double) -> Fit? {
        guard let c = centred(sums) else { return nil }
        let slope = c.sty / c.stt
        let rss = max(0, c.syy - slope * c.sty)
        // t = b / SE(b) with Var(b) = factor · σ² / Stt, using b² Stt = b Sty.
        let variance = max(Self.varianceFloor, rss * Self.reciprocal(c.count - 2))
        let magnitude = max(0, slope * c.sty / (variance * max(1, factor))).squareRoot()
        let intercept = (sums.y - slope * sums.t) * c.inverseN
        let newest = relative(c.last)
        return Fit(slope: slope, t: slope < 0 ? -magnitude : magnitude, count: c.count,
                   span: c.span, lastResidual: newest.y - intercept - slope * newest.t)
    }

    /// Only the t-statistic, with one division: t² = Sty² / (Stt · σ² · factor), where
    /// Stt · σ² = (Syy Stt − Sty²) / (n − 2), floored like `fit`'s variance.
    private mutating func lean(_ sums: Sums, _ factor: Double) -> Fit? {
        guard let c = centred(sums) else { return nil }
        let scaledVariance = max(Self.varianceFloor * c.stt,
                                 max(0, c.syy * c.stt - c.sty * c.sty) * Self.reciprocal(c.count - 2))
        let magnitude = (c.sty * c.sty / (scaledVariance * max(1, factor))).squareRoot()
        return Fit(slope: 0, t: c.sty < 0 ? -magnitude : magnitude, count: c.count, span: c.span, lastResidual: 0)
    }

    /// 1/k for the small counts a window holds, without a division.
    private static let reciprocals: [Double] = (0...256).map { $0 == 0 ? 0 : 1 / Double($0) }
    private static func reciprocal(_ k: Int) -> Double { k < reciprocals.count ? reciprocals[k] : 1 / Double(k) }

    private func relative(_ p: Point) -> Point { Point(t: p.t - origin.t, y: p.y - origin.y) }

    private mutating func dropOldest() {
        let inRecent = recent.count == samples.count, inMiddle = middle.count == samples.count
        guard let first = samples.removeOldest() else { return }
        all.add(relative(first), sign: -1)
        if inMiddle { middle.add(relative(first), sign: -1) }
        if inRecent { recent.add(relative(first), sign: -1) }
    }

    private mutating func rebase() {
        appendsSinceRebase = 0
        guard let first = samples.oldest else { return }
        let recentCount = recent.count, middleCount = middle.count
        origin = first
        all = Sums()
        middle = Sums()
        recent = Sums()
        for i in 0..<samples.count {
            let p = relative(samples[i])
            all.add(p, sign: 1)
            if i >= samples.count - middleCount { middle.add(p, sign: 1) }
            if i >= samples.count - recentCount { recent.add(p, sign: 1) }
        }
    }
}
