import BeaconCore
import Foundation

/// Ranging for carried phones: distance error and wobble on real walks (a beacon carried by a
/// walking person, philotuxo) and on resting herald positions with constructed body fades,
/// for the product's Ranger beside ranging-eval's baselines (same formulas).
enum Carried {
    typealias Estimator = @Sendable (_ times: [Double], _ rssi: [Double], _ line: PathLossModel) -> [Double]

    static let estimators: [(String, Estimator)] = [
        ("raw", { _, rssi, line in rssi.map { line.distance(forRSSI: $0) } }),
        ("abl", abl),
        ("kalmanjs", kalmanJS),
        ("project", { times, rssi, line in
            var ranger = Ranger(calibration: Calibration(model: line))
            return zip(times, rssi).map { ranger.update(time: $0, rssi: $1).distance }
        }),
    ]

    /// ranging-eval's `est_kalmanjs`: process 0.01, measurement 3, then path loss.
    static func kalmanJS(_ times: [Double], _ rssi: [Double], _ line: PathLossModel) -> [Double] {
        var x = Double.nan, cov = 3.0
        return rssi.map { z in
            if x.isNaN { x = z } else {
                let p = cov + 0.01, k = p / (p + 3)
                x += k * (z - x)
                cov = (1 - k) * p
            }
            return line.distance(forRSSI: x)
        }
    }

    /// ranging-eval's `est_abl`: 20 s trimmed running mean, Nexus 5 curve.
    static func abl(_ times: [Double], _ rssi: [Double], _ line: PathLossModel) -> [Double] {
        var window: [(Double, Double)] = []
        return zip(times, rssi).map { t, r in
            window = window.filter { t - $0.0 <= 20 } + [(t, r)]
            var values = window.map(\.1).sorted()
            if values.count > 2 {
                let k = values.count / 10 + 1
                let trimmed = Array(values.dropFirst(k).dropLast(k))
                if !trimmed.isEmpty { values = trimmed }
            }
            let ratio = values.reduce(0, +) / Double(values.count) / line.txPower
            return ratio < 1 ? pow(ratio, 10) : 0.42093 * pow(ratio, 6.9476) + 0.54992
        }
    }

    struct Score {
        var errors: [Double] = []
        var wobble: [Double] = []
        var overDouble = 0
        var median: Double { quantile(0.5) }
        var p90: Double { quantile(0.9) }
        func quantile(_ q: Double) -> Double {
            guard !errors.isEmpty else { return .nan }
            let s = errors.sorted()
            return exp(s[min(s.count - 1, Int(Double(s.count) * q))]) - 1
        }
        var medianWobble: Double { wobble.isEmpty ? .nan : wobble.sorted()[wobble.count / 2] }
    }

    /// Scores estimates against the truth after a 3 s warm-up: |log(est/true)|, and the
    /// sample-to-sample wobble of the error in dB of path loss (std of differences / √2).
    static func score(_ est: [Double], truth: [Double], times: [Double], line: PathLossModel, into s: inout Score) {
        guard let t0 = times.first else { return }
        var db: [Double] = []
        for i in est.indices where times[i] - t0 >= 3 && est[i].isFinite && truth[i] > 0 {
            s.errors.append(abs(log(max(est[i], 1e-3) / truth[i])))
            if est[i] > 2 * truth[i] { s.overDouble += 1 }
            db.append(10 * line.exponent * log10(max(est[i], 1e-3) / truth[i]))
        }
        guard db.count > 10 else { return }
        let diffs = zip(db.dropFirst(), db).map { $0 - $1 }
        let mean = diffs.reduce(0, +) / Double(diffs.count)
        let variance = diffs.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(diffs.count)
        s.wobble.append((variance / 2).squareRoot())
    }

    /// Real walks: every trace whose true distance changes on most samples, at its own timing;
    /// the line is fitted (ranging-eval's way) on the folder's static positions.
    static func walks(folder: String) throws {
        var statics: [Position] = [], walks: [Trace] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where name.contains(".csv") {
            guard let trace = try? TraceParser.parse(Recordings.read(folder + "/" + name)), trace.hasTrueDistance else { continue }
            let s = trace.samples
            let changes = zip(s.dropFirst(), s).filter { abs(($0.trueDistance ?? 0) - ($1.trueDistance ?? 0)) > 1e-6 }.count
            if s.count > 20 && Double(changes) > 0.5 * Double(s.count) { walks.append(trace) } else { statics += Recordings.segments(s) }
        }
        guard let line = Recordings.fitAll(statics) else { print("no static positions to calibrate on"); return }
        print("walks: \(walks.count) traces, line A = \(String(format: "%.1f", line.txPower)) dBm, n = \(String(format: "%.2f", line.exponent)) (fitted on \(statics.count) static positions)")
        table { name, estimate, s in
            for w in walks {
                let times = w.samples.map(\.time), rssi = w.samples.map(\.rssi), truth = w.samples.map { $0.trueDistance ?? .nan }
                score(estimate(times, rssi, line), truth: truth, times: times, line: line, into: &s)
            }
        }
    }

    /// Resting herald positions ≥ 1 m (30 s at 10 Hz) with a body between the phones for 2 s
    /// in every 10 (12 dB deeper, the real samples shifted): the distance must not follow.
    static func fades(_ recordings: [Recording], depth: Double = 12) {
        print("constructed body fades: herald positions ≥ 1 m, every 10 s a 2 s dip of \(Int(depth)) dB")
        table { name, estimate, s in
            for r in recordings {
                guard let line = r.line else { continue }
                let far = r.positions.filter { $0.distance >= 0.2 }.sorted { $0.distance < $1.distance }
                for (i, p) in far.enumerated() where i % 2 == 1 && p.distance >= 1 {
                    let rssi = p.rssi.prefix(300).enumerated().map { k, v in k % 100 >= 50 && k % 100 < 70 ? v - depth : v }
                    let times = rssi.indices.map { Double($0) / rate }
                    score(estimate(times, rssi, line), truth: Array(repeating: p.distance, count: rssi.count), times: times, line: line, into: &s)
                }
            }
        }
    }

    static func table(_ run: (String, Estimator, inout Score) -> Void) {
        print("| estimator | median_rel_err | p90_rel_err | over 2× truth | wobble_db (median) |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for (name, estimate) in estimators {
            var s = Score()
            run(name, estimate, &s)
            print("| \(name) " + String(format: "| %.3f | %.3f | %.1f %% | %.2f |", s.median, s.p90,
                                         100 * Double(s.overDouble) / Double(max(1, s.errors.count)), s.medianWobble))
        }
        print("")
    }
}
