import BeaconCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small SVG renderer for stacked time-series panels sharing one time axis: dots, lines and
/// shaded spans, linear or log y axes with ticks, axis labels, a legend per panel, a title.
struct SVGChart {
    enum Scale { case linear, log }

    enum Series {
        case dots([(x: Double, y: Double)], color: String, label: String)
        case line([(x: Double, y: Double)], color: String, label: String, dashed: Bool)
        /// Shaded x intervals spanning the panel's height.
        case spans([ClosedRange<Double>], color: String, label: String)

        var label: String {
            switch self {
            case .dots(_, _, let l), .line(_, _, let l, _), .spans(_, _, let l): l
            }
        }
    }

    struct Panel {
        var yLabel: String
        var scale: Scale
        var series: [Series]
    }

    var title: String
    var xLabel: String
    var panels: [Panel]
    var width = 960.0
    var panelHeight = 280.0

    // Layout margins, px: room for tick labels on the left and the axis label below.
    private let left = 78.0, right = 24.0, top = 48.0, gap = 44.0, bottom = 52.0

    func render() -> String {
        let height = top + Double(panels.count) * panelHeight + Double(max(0, panels.count - 1)) * gap + bottom
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" \
            viewBox="0 0 \(n(width)) \(n(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(n(width / 2))" y="28" text-anchor="middle" font-size="16" font-weight="bold">\(escape(title))</text>

            """
        let xs = panels.flatMap { $0.series.flatMap(xValues) }
        let xAxis = Axis(values: xs, scale: .linear)
        for (i, panel) in panels.enumerated() {
            let y0 = top + Double(i) * (panelHeight + gap)
            svg += render(panel, x: xAxis, top: y0, showXLabel: i == panels.count - 1)
        }
        return svg + "</svg>\n"
    }

    private func render(_ panel: Panel, x: Axis, top y0: Double, showXLabel: Bool) -> String {
        let plotWidth = width - left - right
        let ys = panel.series.flatMap(yValues).filter { panel.scale == .linear || $0 > 0 }
        let y = Axis(values: ys, scale: panel.scale)
        let px = { (v: Double) in left + x.fraction(v) * plotWidth }
        let py = { (v: Double) in y0 + (1 - y.fraction(v)) * panelHeight }
        var s = "<g>\n"
        s += "<rect x=\"\(n(left))\" y=\"\(n(y0))\" width=\"\(n(plotWidth))\" height=\"\(n(panelHeight))\" fill=\"none\" stroke=\"#444\"/>\n"
        for t in y.ticks() {
            let yy = py(t)
            s += "<line x1=\"\(n(left))\" x2=\"\(n(left + plotWidth))\" y1=\"\(n(yy))\" y2=\"\(n(yy))\" stroke=\"#ddd\"/>"
            s += "<text x=\"\(n(left - 6))\" y=\"\(n(yy + 4))\" text-anchor=\"end\">\(y.label(t))</text>\n"
        }
        for t in x.ticks() {
            let xx = px(t)
            s += "<line x1=\"\(n(xx))\" x2=\"\(n(xx))\" y1=\"\(n(y0))\" y2=\"\(n(y0 + panelHeight))\" stroke=\"#eee\"/>"
            s += "<text x=\"\(n(xx))\" y=\"\(n(y0 + panelHeight + 16))\" text-anchor=\"middle\">\(x.label(t))</text>\n"
        }
        s += "<text transform=\"translate(\(n(18)),\(n(y0 + panelHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(escape(panel.yLabel))</text>\n"
        if showXLabel {
            s += "<text x=\"\(n(left + plotWidth / 2))\" y=\"\(n(y0 + panelHeight + 38))\" text-anchor=\"middle\">\(escape(xLabel))</text>\n"
        }
        for series in panel.series {
            s += draw(series, px: px, py: py, y: y, top: y0)
        }
        s += legend(panel.series, x: left + plotWidth - 190, y: y0 + 8)
        return s + "</g>\n"
    }

    private func draw(_ series: Series, px: (Double) -> Double, py: (Double) -> Double, y: Axis, top y0: Double) -> String {
        switch series {
        case .dots(let points, let color, let label):
            var s = "<g class=\"series\" data-series=\"\(escape(label))\" fill=\"\(color)\" fill-opacity=\"0.55\">"
            for p in points where y.contains(p.y) && p.x.isFinite {
                s += "<circle cx=\"\(n(px(p.x)))\" cy=\"\(n(py(p.y)))\" r=\"1.6\"/>"
            }
            return s + "</g>\n"
        case .line(let points, let color, let label, let dashed):
            var s = "<g class=\"series\" data-series=\"\(escape(label))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.6\"\(dashed ? " stroke-dasharray=\"6 4\"" : "")>"
            var run: [String] = []
            func flush() {
                if run.count > 1 { s += "<polyline points=\"\(run.joined(separator: " "))\"/>" }
                run.removeAll()
            }
            for p in points {
                if y.contains(p.y) && p.x.isFinite { run.append("\(n(px(p.x))),\(n(py(p.y)))") } else { flush() }
            }
            flush()
            return s + "</g>\n"
        case .spans(let ranges, let color, let label):
            var s = "<g class=\"series\" data-series=\"\(escape(label))\" fill=\"\(color)\" fill-opacity=\"0.25\">"
            for r in ranges {
                let a = px(r.lowerBound), b = px(r.upperBound)
                s += "<rect x=\"\(n(a))\" y=\"\(n(y0))\" width=\"\(n(max(1, b - a)))\" height=\"\(n(panelHeight))\"/>"
            }
            return s + "</g>\n"
        }
    }

    private func legend(_ series: [Series], x: Double, y: Double) -> String {
        var s = "<g class=\"legend\"><rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"182\" height=\"\(n(Double(series.count) * 18 + 8))\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999\"/>"
        for (i, item) in series.enumerated() {
            let yy = y + 16 + Double(i) * 18
            switch item {
            case .dots(_, let color, _):
                s += "<circle cx=\"\(n(x + 16))\" cy=\"\(n(yy - 4))\" r=\"3\" fill=\"\(color)\"/>"
            case .line(_, let color, _, let dashed):
                s += "<line x1=\"\(n(x + 6))\" x2=\"\(n(x + 26))\" y1=\"\(n(yy - 4))\" y2=\"\(n(yy - 4))\" stroke=\"\(color)\" stroke-width=\"2\"\(dashed ? " stroke-dasharray=\"6 4\"" : "")/>"
            case .spans(_, let color, _):
                s += "<rect x=\"\(n(x + 6))\" y=\"\(n(yy - 10))\" width=\"20\" height=\"12\" fill=\"\(color)\" fill-opacity=\"0.25\"/>"
            }
            s += "<text x=\"\(n(x + 34))\" y=\"\(n(yy))\">\(escape(item.label))</text>"
        }
        return s + "</g>\n"
    }

    private func xValues(_ s: Series) -> [Double] {
        switch s {
        case .dots(let p, _, _), .line(let p, _, _, _): p.map(\.x)
        case .spans(let r, _, _): r.flatMap { [$0.lowerBound, $0.upperBound] }
        }
    }

    private func yValues(_ s: Series) -> [Double] {
        switch s {
        case .dots(let p, _, _), .line(let p, _, _, _): p.map(\.y)
        case .spans: []
        }
    }
}

/// Pixel coordinates with two decimals: plenty for screens, and deterministic.
func n(_ v: Double) -> String { FixedDecimal.format(v, places: 2) }

/// Escapes text for SVG content and attribute values.
func escape(_ text: String) -> String {
    var out = ""
    for c in text.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case _ where c.value < 0x20 && c != "\t": out += "?"
        default: out.unicodeScalars.append(c)
        }
    }
    return out
}
