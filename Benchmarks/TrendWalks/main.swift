// The trend estimator (the product's `Ranger`) on the real philotuxo traces (issue 16, part 4):
// per walk, moving samples (true radial speed over ~1.5 s ≥ 0.3 m/s, scored as
// ../shared/tools/ranging-eval scores them), directions spoken on them and right; per static
// trace (a standing beacon, at the receiver's own timing), minutes and directions spoken
// (a change of the trend to closer or farther, counted once per onset).
// Usage: TrendWalks [PHILOTUXO_DIR] [--grid]   (default ../shared/data/philotuxo)
//   prints one JSON line per configuration and trace; `cv.py` beside this file totals them,
//   in-sample and leave-one-walk-out / leave-one-receiver-out.
import BeaconCore
import Foundation
import GzipTraces


let arguments = CommandLine.arguments.dropFirst()
let grid = arguments.contains("--grid")
let directory = arguments.first { !$0.hasPrefix("--") } ?? "../shared/data/philotuxo"
guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
    print("trend-walks: \(directory) not found")
    exit(0)
}

func load(_ name: String) -> [Sample] { gzippedTrace(directory + "/" + name, tool: "trend-walks") }

let files = names.filter { ($0.hasPrefix("track-") || $0.hasPrefix("static-")) && $0.hasSuffix(".csv.gz") }.sorted()
let traces = files.map { ($0, load($0)) }

func run(_ name: String, _ samples: [Sample], _ p: TrendEstimator.Parameters) -> String {
    var ranger = Ranger(calibration: Calibration(model: .default), trend: p)
    let trends = samples.map { ranger.update(time: $0.time, rssi: $0.rssi).trend }
    if name.hasPrefix("static-") {
        var onsets = 0, issued = 0
        var previous = Trend.unknown
        for t in trends {
            if t == .closer || t == .farther {
                issued += 1
                if t != previous { onsets += 1 }
            }
            previous = t
        }
        let minutes = ((samples.last?.time ?? 0) - (samples.first?.time ?? 0)) / 60
        return "\"minutes\":\(minutes),\"onsets\":\(onsets),\"issued\":\(issued),\"samples\":\(samples.count)"
    }
    var moving = 0, spoke = 0, right = 0, j = 0
    for (i, s) in samples.enumerated() {
        while s.time - samples[j].time > 1.5 { j += 1 }
        let span = s.time - samples[j].time
        guard span >= 0.8 else { continue }
        let speed = (s.distance - samples[j].distance) / span
        guard abs(speed) >= 0.3 else { continue }
        moving += 1
        guard trends[i] == .closer || trends[i] == .farther else { continue }
        spoke += 1
        if (trends[i] == .closer) == (speed < 0) { right += 1 }
    }
    return "\"moving\":\(moving),\"spoke\":\(spoke),\"right\":\(right)"
}

let previous = TrendEstimator.Parameters.previousDefault
var configs: [(String, TrendEstimator.Parameters)] = [("default", .default), ("previous default", previous)]
if grid {
    // Today's windows, and the long window with each of this issue's additions (BENCHMARKS.md).
    // (As measured before they became the default: fixed z, no relapse hold-off, no cap.)
    func long(_ z: Double, studentize: Bool, change: Bool) -> TrendEstimator.Parameters {
        var p = previous
        p.window = 12
        p.longestWindow = 16
        p.capacity = 256
        p.longConfidence = z
        p.studentize = studentize
        p.changeConfidence = change ? 2.5 : nil
        p.restartOnRetract = change
        return p
    }
    var studentized = previous
    studentized.studentize = true
    configs = [("default", .default), ("previous default", previous), ("previous, studentized", studentized)]
    for z in [2.5, 2.75, 3.0] {
        configs.append(("long z\(z)", long(z, studentize: false, change: false)))
        configs.append(("long z\(z) change-point", long(z, studentize: false, change: true)))
        configs.append(("long z\(z) studentized", long(z, studentize: true, change: false)))
        configs.append(("long z\(z) studentized change-point", long(z, studentize: true, change: true)))
    }
}
if arguments.contains("--variants") {
    var noCap = TrendEstimator.Parameters(); noCap.dofFactorCap = nil
    var noHold = TrendEstimator.Parameters(); noHold.relapseHoldOff = false
    var neither = noCap; neither.relapseHoldOff = false
    configs = [("default", .default), ("no dof cap", noCap), ("no relapse hold-off", noHold), ("neither", neither)]
}
if arguments.contains("--rates") {
    // False directions a second for the long (and middle) window, whatever the report rate.
    configs = [("default", .default), ("previous default", previous)]
    for (middle, floor) in [(nil, nil), (nil, 2.25), (nil, 2.5), (0.0025, 2.25)] as [(Double?, Double?)] {
        for long in [0.01, 0.0137, 0.02, 0.03, 0.05] {
            var p = TrendEstimator.Parameters()
            p.window = 12
            p.longestWindow = 16
            p.capacity = 256
            p.studentize = true
            p.changeConfidence = 2.5
            p.restartOnRetract = true
            p.longFalseRate = long
            p.middleFalseRate = middle
            p.falseRateFloor = floor
            configs.append(("rate long \(long) middle \(middle.map { "\($0)" } ?? "3.5t") floor \(floor ?? 0)", p))
        }
    }
}
for (label, p) in configs {
    for (name, samples) in traces {
        print("{\"config\":\"\(label)\",\"trace\":\"\(name)\",\(run(name, samples, p))}")
    }
}
