import BeaconCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps data values onto [0, 1] for one axis and chooses readable ticks.
struct Axis {
    let scale: SVGChart.Scale
    let low: Double
    let high: Double

    init(values: [Double], scale: SVGChart.Scale) {
        self.scale = scale
        let finite = values.filter { $0.isFinite && (scale == .linear || $0 > 0) }
        var lo = finite.min() ?? (scale == .log ? 0.1 : 0)
        var hi = finite.max() ?? (scale == .log ? 10 : 1)
        switch scale {
        case .linear:
            if hi - lo < 1e-9 { lo -= 1; hi += 1 }
            let step = Axis.niceStep((hi - lo) / 6)
            lo = (lo / step).rounded(.down) * step
            hi = (hi / step).rounded(.up) * step
        case .log:
            // Whole decades read best on a log axis.
            lo = pow(10, log10(lo).rounded(.down))
            hi = pow(10, log10(hi).rounded(.up))
            if hi <= lo { hi = lo * 10 }
        }
        low = lo
        high = hi
    }

    func contains(_ v: Double) -> Bool {
        v.isFinite && v >= low && v <= high && (scale == .linear || v > 0)
    }

    func fraction(_ v: Double) -> Double {
        switch scale {
        case .linear: (v - low) / (high - low)
        case .log: (log10(v) - log10(low)) / (log10(high) - log10(low))
        }
    }

    func ticks() -> [Double] {
        switch scale {
        case .linear:
            let step = Axis.niceStep((high - low) / 6)
            var out: [Double] = []
            var v = low
            while v <= high + step * 1e-6 && out.count < 50 {
                out.append(v)
                v += step
            }
            return out
        case .log:
            var out: [Double] = []
            var decade = low
            let decades = log10(high / low)
            while decade <= high * 1.0001 && out.count < 60 {
                out.append(decade)
                // Few decades: also 2× and 5× to keep the axis readable.
                if decades <= 3 {
                    for m in [2.0, 5.0] where decade * m < high { out.append(decade * m) }
                }
                decade *= 10
            }
            return out
        }
    }

    func label(_ v: Double) -> String {
        if scale == .log && v < 1 {
            var s = FixedDecimal.format(v, places: 3)
            while s.hasSuffix("0") { s.removeLast() }
            return s
        }
        let rounded = (v * 1000).rounded() / 1000
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var s = FixedDecimal.format(rounded, places: 3)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }

    /// 1, 2 or 5 times a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = pow(10, log10(raw).rounded(.down))
        for m in [1.0, 2.0, 5.0, 10.0] where m * magnitude >= raw { return m * magnitude }
        return 10 * magnitude
    }
}
