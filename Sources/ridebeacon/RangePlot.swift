import BeaconCore

/// The `range --plot` figure: RSSI (raw dots, filtered line, touch spans) above distance
/// (estimated, and true when the trace has it) on a log scale.
enum RangePlot {
    /// Points per series before decimation: more than a screen can show and keeps files small.
    static let maxPoints = 4000

    static func svg(title: String, trace: Trace, estimates: [RangeEstimate]) -> String {
        let times = estimates.map(\.time)
        let raw = decimate(zip(times, trace.samples.map(\.rssi)).map { (x: $0, y: $1) })
        let filtered = decimate(zip(times, estimates.map(\.filteredRSSI)).map { (x: $0, y: $1) })
        let distance = decimate(zip(times, estimates.map(\.distance)).map { (x: $0, y: $1) })

        var rssiSeries: [SVGChart.Series] = [
            .dots(raw, color: "#7f8c8d", label: "RSSI samples"),
            .line(filtered, color: "#1f77b4", label: "filtered RSSI", dashed: false),
        ]
        let touches = touchSpans(estimates)
        if !touches.isEmpty { rssiSeries.append(.spans(touches, color: "#2ca02c", label: "touch")) }

        var distanceSeries: [SVGChart.Series] = [.line(distance, color: "#d62728", label: "estimated distance", dashed: false)]
        if trace.hasTrueDistance {
            let truth = zip(times, trace.samples).map { (x: $0, y: $1.trueDistance ?? .nan) }
            distanceSeries.append(.line(decimate(truth), color: "#000000", label: "true distance", dashed: true))
        }
        let chart = SVGChart(title: title, xLabel: "time (s)", panels: [
            .init(yLabel: "RSSI (dBm)", scale: .linear, series: rssiSeries),
            .init(yLabel: "distance (m, log scale)", scale: .log, series: distanceSeries),
        ])
        return chart.render()
    }

    /// Contiguous runs of touch, as time intervals.
    static func touchSpans(_ estimates: [RangeEstimate]) -> [ClosedRange<Double>] {
        var spans: [ClosedRange<Double>] = []
        var start: Double?
        for (i, e) in estimates.enumerated() {
            if e.touch, start == nil { start = e.time }
            let ends = !e.touch || i == estimates.count - 1
            if ends, let s = start {
                spans.append(s...max(s, e.time))
                start = nil
            }
        }
        return spans
    }

    /// Keeps every k-th point plus each bucket's extremes so spikes stay visible.
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
            } else {
                out.append(chunk[chunk.startIndex])
            }
            i += bucket
        }
        return out
    }
}
