/// Least-squares line through the samples of the last `window` seconds, with the slope's
/// standard error corrected for serially correlated residuals. O(1) per sample: running sums,
/// re-based on the oldest sample every `capacity` appends so rounding cannot accumulate.
///
/// The caller supplies how much serial correlation inflates the slope variance (see
/// `TrendEstimator`): estimating it inside a window of a few dozen samples is biased low
/// and noisy, which makes the test overconfident exactly when fading mimics motion.
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
    /// A gap longer than this (s) starts the fit afresh: the samples before it describe a
    /// different moment.
    let maxGap: Double
    /// Smallest residual variance believed, dB²: RSSI comes in whole dB, so a run of identical
    /// readings must not make a tiny wobble look certain ((0.5 dB)², half a quantum).
    static let varianceFloor = 0.25

    private var samples: RingBuffer<Point>
    private var origin = Point(t: 0, y: 0)
    private var sums = Sums()
    private var appendsSinceRebase = 0

    struct Point: Sendable { var t: Double; var y: Double }

    private struct Sums: Sendable {
        var t = 0.0, y = 0.0, tt = 0.0, ty = 0.0, yy = 0.0

        mutating func add(_ p: Point, sign: Double) {
            t += sign * p.t; y += sign * p.y
            tt += sign * p.t * p.t; ty += sign * p.t * p.y; yy += sign * p.y * p.y
        }
    }

    init(window: Double, capacity: Int, maxGap: Double) {
        self.window = window
        self.maxGap = maxGap
        samples = RingBuffer(capacity: max(3, capacity), filler: Point(t: 0, y: 0))
    }

    var count: Int { samples.count }

    mutating func append(time: Double, value: Double) {
        if let last = samples.newest, time - last.t > maxGap { reset() }
        if samples.isFull { dropOldest() }
        if samples.isEmpty { origin = Point(t: time, y: value) }
        let p = relative(Point(t: time, y: value))
        sums.add(p, sign: 1)
        samples.append(Point(t: time, y: value))
        while let first = samples.oldest, time - first.t > window { dropOldest() }
        appendsSinceRebase += 1
        if appendsSinceRebase >= samples.capacity { rebase() }
    }

    mutating func reset() {
        samples.removeAll()
        sums = Sums()
        appendsSinceRebase = 0
    }

    /// The current fit, or nil with fewer than three samples or no time spread.
    /// `varianceFactor` (≥ 1) inflates the slope variance for correlated residuals.
    /// Arranged for two divisions and one square root: it runs on every sample of every beacon.
    /// (`mutating` only so callers pass the state by reference instead of copying it.)
    mutating func fit(varianceFactor: Double = 1) -> Fit? {
        let count = samples.count
        guard count >= 3, let first = samples.oldest, let last = samples.newest, last.t > first.t else { return nil }
        let inverseN = Self.reciprocal(count)
        let stt = sums.tt - sums.t * sums.t * inverseN
        guard stt > 0 else { return nil }
        let sty = sums.ty - sums.t * sums.y * inverseN
        let syy = sums.yy - sums.y * sums.y * inverseN
        let slope = sty / stt
        let rss = max(0, syy - slope * sty)
        let intercept = (sums.y - slope * sums.t) * inverseN
        let newest = relative(last)
        return Fit(slope: slope, t: Self.tStatistic(slope: slope, sty: sty, rss: rss, count: count, factor: varianceFactor),
                   count: count, span: last.t - first.t, lastResidual: newest.y - intercept - slope * newest.t)
    }

    /// t = b / SE(b) with Var(b) = factor · σ² / Stt, using b² Stt = b Sty.
    private static func tStatistic(slope: Double, sty: Double, rss: Double, count: Int, factor: Double) -> Double {
        let variance = max(varianceFloor, rss * reciprocal(count - 2))
        let t = max(0, slope * sty / (variance * max(1, factor))).squareRoot()
        return slope < 0 ? -t : t
    }

    /// Fit over only the samples of the last `seconds`, computed directly from the buffer
    /// (used rarely: to check an issued trend against the most recent samples).
    mutating func fitRecent(seconds: Double, varianceFactor: Double = 1) -> Fit? {
        guard let last = samples.newest else { return nil }
        var first = samples.count - 1
        while first > 0 && last.t - samples[first - 1].t <= seconds { first -= 1 }
        let count = samples.count - first
        guard count >= 3, last.t > samples[first].t else { return nil }
        var meanT = 0.0, meanY = 0.0
        for i in first..<samples.count {
            meanT += samples[i].t - last.t
            meanY += samples[i].y
        }
        meanT /= Double(count)
        meanY /= Double(count)
        var stt = 0.0, sty = 0.0, syy = 0.0
        for i in first..<samples.count {
            let dt = samples[i].t - last.t - meanT, dy = samples[i].y - meanY
            stt += dt * dt
            sty += dt * dy
            syy += dy * dy
        }
        guard stt > 0 else { return nil }
        let slope = sty / stt
        let rss = max(0, syy - slope * sty)
        return Fit(slope: slope, t: Self.tStatistic(slope: slope, sty: sty, rss: rss, count: count, factor: varianceFactor),
                   count: count, span: last.t - samples[first].t, lastResidual: last.y - meanY + slope * meanT)
    }

    /// 1/k for the small counts a window holds, without a division.
    private static let reciprocals: [Double] = (0...256).map { $0 == 0 ? 0 : 1 / Double($0) }
    private static func reciprocal(_ k: Int) -> Double { k < reciprocals.count ? reciprocals[k] : 1 / Double(k) }

    private func relative(_ p: Point) -> Point { Point(t: p.t - origin.t, y: p.y - origin.y) }

    private mutating func dropOldest() {
        guard let first = samples.removeOldest() else { return }
        let p = relative(first)
        sums.add(p, sign: -1)
    }

    private mutating func rebase() {
        appendsSinceRebase = 0
        guard let first = samples.oldest else { return }
        origin = first
        sums = Sums()
        for i in 0..<samples.count {
            sums.add(relative(samples[i]), sign: 1)
        }
    }
}
