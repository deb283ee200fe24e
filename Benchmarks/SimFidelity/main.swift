// The simulated channel against real walks it was not fitted on (BENCHMARKS.md, "Simulated
// channel", issue 21 part 9). The philotuxo receivers are split in two fixed halves: the channel
// (`scripts/fit_channel.py --receivers …`, passed as --fit) and the report process (the fit
// receivers' interval quantiles in fixtures/report-intervals.json) come from one half; the other
// half's walks are the reference. Each held-out walk's geometry (its true distance over time) is
// replayed through the simulator at report times drawn from the fit half's report process (not the
// real walk's own times), several replicas per walk, and compared with the real held-out walks:
//   level against distance   the raw RSSI per distance band (two-sample Kolmogorov–Smirnov),
//   residual spread          residuals around each receiver's least-squares line, per band (KS),
//   autocorrelation          of those residuals at 0.5 / 1 / 2 s,
//   report intervals         the intervals between reports (KS),
//   direction                the product's Ranger on the simulated reports, scored as
//                            ../shared/tools/ranging-eval scores it, against the real walks.
// KS rejects a match at 5 % when D > 1.358 √((n + m) / (n m)); that bound assumes independent
// samples, and consecutive reports are not, so it rejects more readily than 5 %: a pass is
// solid, a rejection by a small margin is weak evidence.
// Usage: SimFidelity [--fit FIT.json] [--fit-receivers sensor10,sensor12,sensor31]
//                    [--intervals fixtures/report-intervals.json] [--replicas 5] [PHILOTUXO_DIR]
//        (`make sim-fidelity` runs the fit and passes these; without --fit the committed fit,
//        which saw every receiver, is used and the run is in-sample — it says so)
//        SimFidelity --sweep [PHILOTUXO_DIR]: the trend estimator's direction precision and
//        coverage on the real walks over a grid of its windows and thresholds (issue 16 part 4).
import BeaconCore
import Foundation
import GzipTraces
import Guide
import GuideSimulation

struct Walk { var receiver: String; var track: String; var samples: [Sample] }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("sim-fidelity: \(message)\n".utf8))
    exit(1)
}

var arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ arguments: inout [String]) -> String? {
    guard let i = arguments.firstIndex(of: name) else { return nil }
    guard i + 1 < arguments.count else { fail("\(name) needs a value") }
    let value = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
    return value
}
let sweep = arguments.contains("--sweep")
arguments.removeAll { $0 == "--sweep" }
let fitPath = option("--fit", &arguments)
let fitReceivers = (option("--fit-receivers", &arguments) ?? "sensor10,sensor12,sensor31").split(separator: ",").map(String.init)
let intervalsPath = option("--intervals", &arguments) ?? "fixtures/report-intervals.json"
guard let replicas = Int(option("--replicas", &arguments) ?? "5"), replicas > 0 else { fail("--replicas needs a positive whole number") }
if let unknown = arguments.first(where: { $0.hasPrefix("--") }) { fail("unknown option \(unknown)") }
let directory = arguments.first ?? "../shared/data/philotuxo"
guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
    print("sim-fidelity: \(directory) not found; nothing to compare (the shared data is optional)")
    exit(0)
}

let walks: [Walk] = names.filter { $0.hasPrefix("track-") && $0.hasSuffix(".csv.gz") }.sorted().map { name in
    let rows = gzippedTrace(directory + "/" + name, tool: "sim-fidelity")
    let stem = name.dropLast(".csv.gz".count)
    let receiver = String(stem.split(separator: "-").last ?? "")
    let track = String(stem.dropLast(receiver.count + 1))
    return Walk(receiver: receiver, track: track, samples: rows)
}
guard !walks.isEmpty else { fail("no track-*.csv.gz in \(directory)") }

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

// The split.
let receivers = Set(walks.map(\.receiver)).sorted()
if let unknown = fitReceivers.first(where: { !receivers.contains($0) }) {
    fail("--fit-receivers: \(unknown) is not a receiver of the walks (\(receivers.joined(separator: ", ")))")
}
let heldOutReceivers = receivers.filter { !fitReceivers.contains($0) }
guard !heldOutReceivers.isEmpty else { fail("--fit-receivers lists every receiver: nothing is held out") }
let heldOut = walks.filter { heldOutReceivers.contains($0.receiver) }
let fitHalf = walks.filter { fitReceivers.contains($0.receiver) }

// The channel fitted on the fit half.
let fit: ChannelFit
if let fitPath {
    guard let data = FileManager.default.contents(atPath: fitPath) else { fail("cannot read the fit \(fitPath)") }
    do { fit = try ChannelFit.decode(data) } catch { fail("\(fitPath) is not a channel fit: \(error)") }
} else {
    fit = .committed
}

// The fit half's report process, through the simulator's own ReportProcess: each of the fit
// receivers' walks' interval quantiles (fixtures/report-intervals.json), one drawn per walk.
guard let intervalData = FileManager.default.contents(atPath: intervalsPath) else { fail("cannot read \(intervalsPath)") }
let processes: ReportIntervalFit = {
    var table: ReportIntervalFit
    do { table = try JSONDecoder().decode(ReportIntervalFit.self, from: intervalData) } catch {
        fail("\(intervalsPath) is not a report-interval table: \(error)")
    }
    table.receivers = table.receivers.filter { r in
        r.set == "philotuxo" && r.trace.hasPrefix("track-") && r.quantiles.count == 101
            && fitReceivers.contains(where: { r.trace.hasSuffix("-\($0).csv.gz") })
    }
    return table
}()
guard !processes.receivers.isEmpty else { fail("\(intervalsPath) has no philotuxo walk of \(fitReceivers.joined(separator: ", "))") }

/// The true distance of a real walk at `time`, linear between its rows.
func distance(of walk: Walk, at time: Double) -> Double {
    let s = walk.samples
    guard let k = s.firstIndex(where: { $0.time >= time }) else { return s[s.count - 1].distance }
    guard k > 0 else { return s[0].distance }
    let a = s[k - 1], b = s[k]
    return a.distance + (b.distance - a.distance) * (time - a.time) / max(b.time - a.time, 1e-9)
}

/// The held-out walks through the simulator: the receiver on a line from the beacon at the real
/// walk's distance, at report times drawn from one fit-half walk's intervals (the advert loss is in
/// those intervals already, so the channel's own base loss is off; losses near sensitivity stay).
/// Facing the beacon: the fitted spread already holds the carrier's body (issue 16). One channel
/// per receiver and replica.
func simulate(replica: Int) -> [Walk] {
    var root = SeededRandom(seed: 21_000 + UInt64(replica))
    var channels: [String: ChannelModel.Parameters] = [:]
    return heldOut.map { walk in
        if channels[walk.receiver] == nil {
            var draw = root.fork()
            var parameters = ChannelModel.Parameters.calibrated(&draw, fit: fit)
            parameters.baseLoss = 0
            channels[walk.receiver] = parameters
        }
        var channel = ChannelModel(parameters: channels[walk.receiver]!, rng: root.fork())
        var rng = root.fork()
        let process = ReportProcess.draw(&rng, from: processes.receivers)
        var samples: [Sample] = []
        let start = walk.samples[0].time, end = walk.samples[walk.samples.count - 1].time
        var time = start + rng.unit() * process.nextInterval(&rng)
        while time <= end {
            let d = distance(of: walk, at: time)
            if let rssi = channel.receive(at: time, receiver: Point(x: d, y: 0), facing: .pi) {
                samples.append(Sample(time: time, rssi: Double(rssi), distance: d))
            }
            time += process.nextInterval(&rng)
        }
        return Walk(receiver: walk.receiver, track: walk.track, samples: samples)
    }
}
let simulatedReplicas = (0..<replicas).map(simulate(replica:))
let simulated = simulatedReplicas.flatMap { $0 }

typealias Residual = (sample: Sample, residual: Double, walk: Int)

/// Residuals around each receiver's least-squares line rssi = a − 10 n log10 d (d ≥ 1 m).
func residuals(_ set: [Walk]) -> [Residual] {
    var out: [Residual] = []
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

/// The two-sample KS statistic, its 5 % critical value for independent samples, and the verdict.
func ksColumns(_ real: [Double], _ sim: [Double]) -> String {
    let d = ks(real, sim)
    let n = Double(real.count), m = Double(sim.count)
    let critical = 1.358 * ((n + m) / max(n * m, 1)).squareRoot()
    return String(format: "%6.3f  %6.3f  ", d, critical) + (d > critical ? "REJECTS" : "passes")
}

/// Correlation of residual pairs of one walk, both in `band`, `lag` ± 0.25 s apart.
func autocorrelation(_ rows: [Residual], band: ClosedRange<Double>, lag: Double) -> Double {
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

func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(max(v.count, 1)) }
func sd(_ v: [Double]) -> Double {
    let m = mean(v)
    return (v.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(max(v.count, 1))).squareRoot()
}
func quantile(_ v: [Double], _ q: Double) -> Double {
    let s = v.sorted()
    guard !s.isEmpty else { return .nan }
    let x = q * Double(s.count - 1), i = Int(x)
    return i + 1 < s.count ? s[i] + (s[i + 1] - s[i]) * (x - Double(i)) : s[i]
}

let bands: [ClosedRange<Double>] = [1...3, 3...6, 6...10, 10...20]
func label(_ band: ClosedRange<Double>) -> String { String(format: "%4.1f-%4.1f m", band.lowerBound, band.upperBound) }
func levels(_ set: [Walk], _ band: ClosedRange<Double>) -> [Double] {
    set.flatMap { $0.samples.filter { band.contains($0.distance) }.map(\.rssi) }
}
func residualsIn(_ rows: [Residual], _ band: ClosedRange<Double>) -> [Double] {
    rows.filter { band.contains($0.sample.distance) }.map(\.residual)
}
func intervals(_ set: [Walk]) -> [Double] {
    set.flatMap { w in zip(w.samples.dropFirst(), w.samples).map { $0.time - $1.time } }
}

var rejections: [String] = []
func verdict(_ what: String, _ real: [Double], _ sim: [Double], _ rejections: inout [String]) -> String {
    let columns = ksColumns(real, sim)
    if columns.hasSuffix("REJECTS") { rejections.append(what) }
    return columns
}

print("sim-fidelity: fit on \(fitReceivers.joined(separator: ", ")), compared on \(heldOutReceivers.joined(separator: ", "))"
      + " (\(heldOut.count) held-out walks from \(directory), \(replicas) simulated replicas each)")
if fitPath == nil {
    print("  WARNING: no --fit: the committed fit, which used every receiver, so this run is IN-SAMPLE")
} else {
    print("  channel: \(fitPath!) (exponent \(fit.pathLoss.exponentMin)-\(fit.pathLoss.exponentMax), 1 m level "
          + "\(fit.pathLoss.txPowerAt1mMean) ± \(fit.pathLoss.txPowerAt1mSd) dBm, shadowing \(fit.shadowing.sigmaDb) dB over "
          + "\(fit.shadowing.decorrelationM) m, fast fading K \(fit.fastFading.ricianKDb) dB)")
}
print("  report process: ReportProcess over the \(processes.receivers.count) fit-half walks of \(intervalsPath)")
print("KS: statistic, 5 % critical value for independent samples, verdict; \"halves\": KS between the two real halves")
print("  (the real receivers' own difference, for scale; its own critical value is larger, the halves being smaller)")

print("\nlevel against distance (raw RSSI, dBm): real held-out vs simulated")
print("band          samples real    sim   mean real   sim  fit half   sd real   sim  halves       KS    crit")
for band in bands {
    let r = levels(heldOut, band), s = levels(simulated, band), f = levels(fitHalf, band)
    print(label(band) + String(format: "  %12d  %6d  %9.1f  %5.1f  %8.1f  %7.2f  %5.2f  %6.3f   ", r.count, s.count, mean(r), mean(s), mean(f),
                               sd(r), sd(s), ks(r, f))
          + verdict("level \(label(band))", r, s, &rejections))
}
let realRes = residuals(heldOut), simRes = residuals(simulated), fitRes = residuals(fitHalf)
print("\nresidual spread (around each receiver's own least-squares line, dB)")
print("band          samples real    sim   sd real    sim  fit half  halves       KS    crit")
for band in bands {
    let r = residualsIn(realRes, band), s = residualsIn(simRes, band), f = residualsIn(fitRes, band)
    print(label(band) + String(format: "  %12d  %6d  %7.2f  %5.2f  %8.2f  %6.3f   ", r.count, s.count, sd(r), sd(s), sd(f), ks(r, f))
          + verdict("residual \(label(band))", r, s, &rejections))
}
print("\nresidual autocorrelation at 0.5 / 1 / 2 s: real held-out | simulated | real fit half")
for band in bands {
    func three(_ rows: [Residual]) -> String {
        [0.5, 1.0, 2.0].map { String(format: "%5.2f", autocorrelation(rows, band: band, lag: $0)) }.joined(separator: " ")
    }
    print(label(band) + "  " + three(realRes) + " | " + three(simRes) + " | " + three(fitRes))
}
let realIntervals = intervals(heldOut), simIntervals = intervals(simulated), fitIntervals = intervals(fitHalf)
print("\nreport intervals (s): real held-out walks vs simulated (drawn from the fit half)")
print("          count   rate/s    p10    p50    p90    p99       KS    crit")
for (name, v) in [("real", realIntervals), ("fit half", fitIntervals), ("simulated", simIntervals)] {
    print(name.padding(toLength: 9, withPad: " ", startingAt: 0)
          + String(format: " %6d  %6.2f  %5.3f  %5.3f  %5.3f  %5.3f", v.count, Double(v.count) / max(v.reduce(0, +), 1e-9),
                   quantile(v, 0.1), quantile(v, 0.5), quantile(v, 0.9), quantile(v, 0.99))
          + (name == "real" ? "" : name == "fit half" ? String(format: "   halves %.3f", ks(realIntervals, fitIntervals))
                : "   " + verdict("report intervals", realIntervals, simIntervals, &rejections)))
}
print("\ndirection at the real report rate (the Ranger's trend while the true radial speed is >= 0.3 m/s): precision / coverage")
print("band          moving real    sim   real held-out   simulated       real fit half")
for band in bands + [1...100] {
    let r = direction(heldOut, band: band), s = direction(simulated, band: band), f = direction(fitHalf, band: band)
    let name = band == 1...100 ? "all        " : label(band)
    print(name + String(format: "  %11d  %6d   %.3f / %.3f   %.3f / %.3f   %.3f / %.3f", r.moving, s.moving, r.precision, r.coverage,
                        s.precision, s.coverage, f.precision, f.coverage))
}
print("\nKS rejects a match at 5 %: " + (rejections.isEmpty ? "nowhere" : rejections.joined(separator: "; ")))
