import BeaconCore

/// The `range --plot` figure: RSSI (raw dots, filtered line, touch spans) above distance
/// (estimated, and true when the trace has it) on a log scale.
enum RangePlot {
    /// Points per series before decimation: more than a screen can show and keeps files small.
    static let maxPoints = 4000

    static func svg(title: String, trace: Trace, estimates: [RangeEstimate]) -> String {
        let times = estimates.map(\.time)
        let gaps = gapStarts(times)
        let raw = decimate(zip(times, trace.samples.map(\.rssi)).map { (x: $0, y: $1) })
        let filtered = decimate(broken(zip(times, estimates.map(\.filteredRSSI)).map { (x: $0, y: $1) }, at: gaps))
        let distance = decimate(broken(zip(times, estimates.map(\.distance)).map { (x: $0, y: $1) }, at: gaps))

        var rssiSeries: [SVGChart.Series] = [
            .dots(raw, color: "#7f8c8d", label: "RSSI samples"),
            .line(filtered, color: "#1f77b4", label: "filtered RSSI", dashed: false),
        ]
        let touches = touchSpans(estimates)
        if !touches.isEmpty { rssiSeries.append(.spans(touches, color: "#2ca02c", label: "touch")) }

        var distanceSeries: [SVGChart.Series] = [.line(distance, color: "#d62728", label: "estimated distance", dashed: false)]
        if trace.hasTrueDistance {
            let truth = zip(times, trace.samples).map { (x: $0, y: $1.trueDistance ?? .nan) }
            distanceSeries.append(.line(decimate(broken(truth, at: gaps)), color: "#000000", label: "true distance", dashed: true))
        }
        let chart = SVGChart(title: title, xLabel: "time (s)", panels: [
            .init(yLabel: "RSSI (dBm)", scale: .linear, series: rssiSeries),
            .init(yLabel: "distance (m, log scale)", scale: .log, series: distanceSeries),
        ])
        return chart.render()
    }

    /// Contiguous runs of touch, from the first to the last touching sample of each run.
    static func touchSpans(_ estimates: [RangeEstimate]) -> [ClosedRange<Double>] {
        var spans: [ClosedRange<Double>] = []
        var run: ClosedRange<Double>?
        for e in estimates {
            if e.touch {
                run = run.map { $0.lowerBound...e.time } ?? e.time...e.time
            } else if let r = run {
                spans.append(r)
                run = nil
            }
        }
        if let run { spans.append(run) }
        return spans
    }

    /// Indices whose sample follows a silence: longer than 10 typical intervals and than 5 s.
    /// Lines are not drawn across them (nothing was measured there).
    static func gapStarts(_ times: [Double]) -> Set<Int> {
        guard times.count > 2 else { return [] }
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
        let limit = max(5, 10 * steps[steps.count / 2])
        return Set(times.indices.dropFirst().filter { times[$0] - times[$0 - 1] > limit })
    }

    /// Inserts a NaN point before each gap so the line breaks there.
    static func broken(_ points: [(x: Double, y: Double)], at gaps: Set<Int>) -> [(x: Double, y: Double)] {
        guard !gaps.isEmpty else { return points }
        var out: [(x: Double, y: Double)] = []
        out.reserveCapacity(points.count + gaps.count)
        for (i, p) in points.enumerated() {
            if gaps.contains(i) { out.append((x: p.x, y: .nan)) }
            out.append(p)
        }
        return out
    }

    /// Reduces long series to each bucket's extremes, so spikes stay visible.
    static func decimate(_ points: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
        guard points.count > maxPoints else { return points }
        let bucket = (points.count + maxPoints / 2 - 1) / (maxPoints / 2)
        var out: [(x: Double, y: Double)] = []
        var i = 0
        while i < points.count {
            let chunk = points[i..<min(points.count, i + bucket)]
            let finite = chunk.filter { $0.y.isFinite }
            if let lo = finite.min(by: { $0.y < $1.y }), let hi = finite.max(by: { $0.y < $1.y }) {
                out.append(contentsOf: lo.x <= hi.x ? [lo, hi] : [hi, lo])
            }
            // Keep line breaks (NaN) that fell inside the bucket.
            if finite.count < chunk.count, let last = chunk.last { out.append((x: last.x, y: .nan)) }
            i += bucket
        }
        return out
    }
}
