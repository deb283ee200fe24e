// The simulated channel against the real walking traces (BENCHMARKS.md, "Simulated channel"):
// each real walk's geometry (true distance over time, at the real report times) is replayed
// through the simulator, before calibration (`ChannelModel.Parameters.random`, the old ranges)
// and after (`calibrated`, fixtures/channel-fit.json), and compared per distance band with the
// real RSSI: the residuals around the path-loss line (two-sample Kolmogorov–Smirnov statistic),
// the residuals' autocorrelation at 0.5/1/2 s, and the guide's direction precision and coverage
// (the product's Ranger, scored as ../shared/tools/ranging-eval scores it).
// Usage: SimFidelity [PHILOTUXO_DIR]   (default ../shared/data/philotuxo)
//        SimFidelity --sweep [PHILOTUXO_DIR]: the trend estimator's direction precision and
//        coverage on the real walks over a grid of its windows and thresholds (issue 16 part 4).
import BeaconCore
import Foundation
import GzipTraces
import Guide
import GuideSimulation

struct Walk { var receiver: String; var samples: [Sample] }

let sweep = CommandLine.arguments.contains("--sweep")
let directory = CommandLine.arguments.dropFirst().first { $0 != "--sweep" } ?? "../shared/data/philotuxo"
guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
    print("sim-fidelity: \(directory) not found; nothing to compare (the shared data is optional)")
    exit(0)
}

let walks: [Walk] = names.filter { $0.hasPrefix("track-") && $0.hasSuffix(".csv.gz") }.sorted().map { name in
    let rows = gzippedTrace(directory + "/" + name, tool: "sim-fidelity")
    let receiver = String(name.dropLast(".csv.gz".count).split(separator: "-").last ?? "")
    return Walk(receiver: receiver, samples: rows)
}
guard !walks.isEmpty else {
    print("sim-fidelity: no track-*.csv.gz in \(directory)")
    exit(1)
}

/// The same walks through the simulator: the receiver on a line from the beacon at the real
/// distances and report times. Its facing is always towards the beacon: the fitted spread
/// already holds whatever the carrier's body did on the real walks (adding the simulator's body
/// loss on every receding stretch as well counted it twice: 7–8 dB of spread against the real
/// 5 dB). One channel per receiver, as one receiver is one place.
func simulate(calibrated: Bool) -> [Walk] {
    var channels: [String: ChannelModel.Parameters] = [:]
    var root = SeededRandom(seed: 16)
    return walks.map { walk in
        if channels[walk.receiver] == nil {
            var draw = root.fork()
            channels[walk.receiver] = calibrated ? .calibrated(&draw) : .random(&draw)
        }
        var channel = ChannelModel(parameters: channels[walk.receiver]!, rng: root.fork())
        let samples = walk.samples.compactMap { s -> Sample? in
            channel.receive(at: s.time, receiver: Point(x: s.distance, y: 0), facing: .pi)
                .map { Sample(time: s.time, rssi: Double($0), distance: s.distance) }
        }
        return Walk(receiver: walk.receiver, samples: samples)
    }
}

/// Residuals around each receiver's least-squares line rssi = a − 10 n log10 d (d ≥ 1 m).
func residuals(_ set: [Walk]) -> [(sample: Sample, residual: Double, walk: Int)] {
    var out: [(Sample, Double, Int)] = []
    for receiver in Set(set.map(\.receiver)).sorted() {
        let members = set.enumerated().filter { $0.element.receiver == receiver }
        let points = members.flatMap { m in m.element.samples.filter { $0.distance >= 1 }.map { ($0, m.offset) } }
        let xs = points.map { -10 * log10($0.0.distance) }, ys = points.map(\.0.rssi)
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        let sxx = zip(xs, xs).map { ($0 - mx) * ($1 - mx) }.reduce(0, +)
        let n = zip(xs, ys).map { ($0 - mx) * ($1 - my) }.reduce(0, +) / max(sxx, 1e-9)
        for (i, point) in points.enumerated() { out.append((point.0, ys[i] - (my + n * (xs[i] - mx)), point.1)) }
    }
    return out
}

func ks(_ a: [Double], _ b: [Double]) -> Double {
    let x = a.sorted(), y = b.sorted()
    guard !x.isEmpty, !y.isEmpty else { return .nan }
    var i = 0, j = 0, worst = 0.0
    while i < x.count && j < y.count {
        let v = min(x[i], y[j])
        while i < x.count && x[i] <= v { i += 1 }
        while j < y.count && y[j] <= v { j += 1 }
        worst = max(worst, abs(Double(i) / Double(x.count) - Double(j) / Double(y.count)))
    }
    return worst
}

/// Correlation of residual pairs of one walk, both in `band`, `lag` ± 0.25 s apart.
func autocorrelation(_ rows: [(sample: Sample, residual: Double, walk: Int)], band: ClosedRange<Double>, lag: Double) -> Double {
    var pairs: [(Double, Double)] = []
    for (i, a) in rows.enumerated() where band.contains(a.sample.distance) {
        var j = i + 1
        while j < rows.count, rows[j].walk == a.walk, rows[j].sample.time - a.sample.time < lag - 0.25 { j += 1 }
        if j < rows.count, rows[j].walk == a.walk, abs(rows[j].sample.time - a.sample.time - lag) <= 0.25,
           band.contains(rows[j].sample.distance) { pairs.append((a.residual, rows[j].residual)) }
    }
    guard pairs.count > 10 else { return .nan }
    let ma = pairs.map(\.0).reduce(0, +) / Double(pairs.count), mb = pairs.map(\.1).reduce(0, +) / Double(pairs.count)
    let cov = pairs.map { ($0.0 - ma) * ($0.1 - mb) }.reduce(0, +)
    let va = pairs.map { ($0.0 - ma) * ($0.0 - ma) }.reduce(0, +), vb = pairs.map { ($0.1 - mb) * ($0.1 - mb) }.reduce(0, +)
    return cov / (va * vb).squareRoot()
}

/// Direction scored as ranging-eval does: at each sample whose true radial speed over the last
/// ~1.5 s is at least 0.3 m/s, whether the Ranger's trend spoke (coverage) and was right (precision).
func direction(_ set: [Walk], band: ClosedRange<Double>, trend: TrendEstimator.Parameters = .default)
    -> (precision: Double, coverage: Double, moving: Int) {
    var moving = 0, spoke = 0, right = 0
    for walk in set {
        var ranger = Ranger(calibration: Calibration(model: .default), trend: trend)
        let trends = walk.samples.map { ranger.update(time: $0.time, rssi: $0.rssi).trend }
        var j = 0
        for (i, s) in walk.samples.enumerated() where band.contains(s.distance) {
            while s.time - walk.samples[j].time > 1.5 { j += 1 }
            let span = s.time - walk.samples[j].time
            guard span >= 0.8 else { continue }
            let speed = (s.distance - walk.samples[j].distance) / span
            guard abs(speed) >= 0.3 else { continue }
            moving += 1
            guard trends[i] == .closer || trends[i] == .farther else { continue }
            spoke += 1
            if (trends[i] == .closer) == (speed < 0) { right += 1 }
        }
    }
    return (Double(right) / Double(max(spoke, 1)), Double(spoke) / Double(max(moving, 1)), moving)
}

if sweep {
    print("window  middle  confidence  long confidence  keep   precision  coverage  (real walks, all bands)")
    for window in [6.0, 8.0, 10.0, 12.0] {
        for middle in [3.0, 4.0] {
            for confidence in [3.5, 3.0] {
                for long in [3.5, 3.0, 2.5, 2.0] where long <= confidence {
                    for keep in [2.0, 1.5] {
                        var p = TrendEstimator.Parameters()
                        p.window = window
                        p.middleWindow = middle
                        p.longestWindow = max(p.longestWindow, window + 4)
                        p.confidence = confidence
                        p.longConfidence = long
                        p.keepConfidence = keep
                        let r = direction(walks, band: 0...100, trend: p)
                        print(String(format: "%6.0f  %6.0f  %10.1f  %15.1f  %4.1f   %9.3f  %8.3f", window, middle, confidence, long, keep,
                                     r.precision, r.coverage))
                    }
                }
            }
        }
    }
    exit(0)
}

let before = simulate(calibrated: false), after = simulate(calibrated: true)
let real = residuals(walks), old = residuals(before), new = residuals(after)
let bands: [ClosedRange<Double>] = [1...3, 3...6, 6...10, 10...17.5]
func label(_ band: ClosedRange<Double>) -> String { String(format: "%4.1f-%4.1f m", band.lowerBound, band.upperBound) }
func residualsIn(_ rows: [(sample: Sample, residual: Double, walk: Int)], _ band: ClosedRange<Double>) -> [Double] {
    rows.filter { band.contains($0.sample.distance) }.map(\.residual)
}
func sd(_ v: [Double]) -> Double {
    let m = v.reduce(0, +) / Double(max(v.count, 1))
    return (v.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(max(v.count, 1))).squareRoot()
}

print("sim-fidelity: \(walks.count) real walks from \(directory), replayed through the simulator before and after calibration")
print("residuals around each receiver's path-loss line: spread (dB) and KS statistic against the real ones")
print("band          samples real   sd real  sd before  sd after   KS before  KS after")
for band in bands {
    let r = residualsIn(real, band), o = residualsIn(old, band), n = residualsIn(new, band)
    print(label(band) + String(format: "  %12d  %8.2f  %9.2f  %8.2f   %9.3f  %8.3f", r.count, sd(r), sd(o), sd(n), ks(r, o), ks(r, n)))
}
print("residual autocorrelation at 0.5 / 1 / 2 s: real | before | after")
for band in bands {
    func three(_ rows: [(sample: Sample, residual: Double, walk: Int)]) -> String {
        [0.5, 1.0, 2.0].map { String(format: "%5.2f", autocorrelation(rows, band: band, lag: $0)) }.joined(separator: " ")
    }
    print(label(band) + "  " + three(real) + " | " + three(old) + " | " + three(new))
}
print("direction (the Ranger's trend while the true radial speed is >= 0.3 m/s): precision / coverage")
print("band          moving samples   real            before          after")
for band in bands + [1...100] {
    let r = direction(walks, band: band), o = direction(before, band: band), n = direction(after, band: band)
    let name = band == 1...100 ? "all        " : label(band)
    print(name + String(format: "  %14d   %.3f / %.3f   %.3f / %.3f   %.3f / %.3f", r.moving, r.precision, r.coverage,
                        o.precision, o.coverage, n.precision, n.coverage))
}
