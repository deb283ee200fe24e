import BeaconCore
import Foundation

/// `--step`: the step rule (`TouchStep`, issue 34) chosen on some herald phone pairs, scored on
/// the others per event beside the level rules, at three report rates, and on carried phones.
enum StepBenchmark {
    /// Pairs the constants are chosen on: every low-power transmitter kind (A20, J6, P2, N8)
    /// and the 1 cm iPhone pair. The other three (A10+A20, Denmark+P2, Denmark+Germany) are
    /// held out: only scored.
    static let tuningPairs: Set<String> = ["A20+J6", "A20+P2", "N8+P2", "Denmark+Netherlands"]
    static let rates = [2.0, 10.0, 30.0]

    static func grid() -> [TouchStep.Parameters] {
        var out: [TouchStep.Parameters] = []
        for rise in stride(from: 6.0, through: 14.0, by: 2.0) {
            for above in stride(from: 0.0, through: 12.0, by: 3.0) {
                for history in [10.0, 20.0] {
                    for drift in [3.0, 4.0, 6.0, 99] {
                        var p = TouchStep.Parameters()
                        p.rise = rise; p.above = above; p.history = history; p.drift = drift
                        out.append(p)
                    }
                }
            }
        }
        return out
    }

    static func run(recordings: [Recording], pcng: String?, walks: String?) throws {
        let tuning = recordings.filter { tuningPairs.contains($0.pair) }
        let heldOut = recordings.filter { !tuningPairs.contains($0.pair) }
        let events = StepEvents(rate: 10)
        print("tuning pairs: \(tuningPairs.sorted().joined(separator: ", ")) (\(tuning.count) recordings); held out: \(Set(heldOut.map(\.pair)).sorted().joined(separator: ", ")) (\(heldOut.count))")
        print("")
        // Choose: no mutual false touch at 10–30 cm or ≥ 50 cm on the tuning pairs, then the most
        // mutual touches within 2 s; ties to the larger rise (safer), then the shorter windows.
        var scored: [(TouchStep.Parameters, StepRow)] = []
        for p in grid() { scored.append((p, events.score(tuning, .step(p)))) }
        let safe = scored.filter { $0.1.mutual.holdsFired == 0 && $0.1.mutual.farFired == 0 }
        guard let chosen = safe.max(by: { a, b in
            (a.1.mutual.within2s, a.1.side.within2s, a.0.rise) < (b.1.mutual.within2s, b.1.side.within2s, b.0.rise)
        }) else { print("no parameters meet the goals on the tuning pairs"); return }
        print("grid: \(scored.count) parameter sets on the tuning pairs at 10 Hz, \(safe.count) with no mutual false touch; the best ten:")
        print("")
        print("| rise dB | above dB | history s | drift dB | side ≤ 2 s | side holds 10–30 cm | side ≥ 50 cm | mutual ≤ 2 s | mutual holds 10–30 cm | mutual ≥ 50 cm |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for (p, r) in safe.sorted(by: { ($0.1.mutual.within2s, $0.1.side.within2s, $0.0.rise) > ($1.1.mutual.within2s, $1.1.side.within2s, $1.0.rise) }).prefix(10) {
            print(String(format: "| %.0f | %.0f | %.0f | %.0f | ", p.rise, p.above, p.history, p.drift)
                  + "\(share(r.side.within2s, r.side.touches)) | \(share(r.side.holdsFired, r.side.holds)) | \(share(r.side.farFired, r.side.far)) | \(share(r.mutual.within2s, r.mutual.touches)) | \(share(r.mutual.holdsFired, r.mutual.holds)) | \(share(r.mutual.farFired, r.mutual.far)) |")
        }
        let p = chosen.0
        print("")
        let d = TouchStep.Parameters.default
        print(String(format: "chosen: rise %.0f dB, above %.0f dB over %.0f s, drift %.0f dB (shipped: %.0f, %.0f, %.0f, %.0f)",
                     p.rise, p.above, p.history, p.drift, d.rise, d.above, d.history, d.drift))
        print("")
        let shipped = TouchStep.Parameters.default
        let detectors: [Detector] = [.shippedLevel, .pairLine, .step(shipped), .stepAndLevel(shipped)]
        perPair(recordings, detectors, events)
        for rate in rates { summary(tuning: tuning, heldOut: heldOut, detectors, StepEvents(rate: rate)) }
        print("without the walk-in (the lead position's 3 s are all the history):")
        print("")
        summary(tuning: tuning, heldOut: heldOut, detectors, StepEvents(rate: 10, walkIn: false))
        riseSweep(heldOut: heldOut, tuning: tuning, around: shipped, events)
        print("with a floor from the pair's line (not in the product):")
        print("")
        summary(tuning: tuning, heldOut: heldOut, [10.0, 13.0, 16.0].map { Detector.stepAboveLine(shipped, floor: $0) }, events)
        if let pcng {
            print("carried phones (pcng), one side, 10 s windows that flagged touch:")
            try carried(folder: pcng, detectors)
        }
        if let walks {
            print("real walks (philotuxo: a beacon carried past fixed receivers, 1–17 m), 10 s windows that flagged touch:")
            try carried(folder: walks, detectors)
        }
    }

    static func header(_ first: String) {
        print("| \(first) | detector | side ≤ 1 s | side ≤ 2 s | side holds 10–30 cm | side ≥ 50 cm | mutual ≤ 1 s | mutual ≤ 2 s | mutual holds 10–30 cm | mutual ≥ 50 cm |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    }

    static func line(_ first: String, _ d: Detector, _ r: StepRow) {
        let s = r.side, m = r.mutual
        print("| \(first) | \(d.name) | \(share(s.within1s, s.touches)) | \(share(s.within2s, s.touches)) | \(share(s.holdsFired, s.holds)) | \(share(s.farFired, s.far)) | \(share(m.within1s, m.touches)) | \(share(m.within2s, m.touches)) | \(share(m.holdsFired, m.holds)) | \(share(m.farFired, m.far)) |")
    }

    static func perPair(_ recordings: [Recording], _ detectors: [Detector], _ events: StepEvents) {
        print("per phone pair at \(Int(events.rate)) Hz (* = tuning pair):")
        print("")
        header("pair")
        for pair in Set(recordings.map(\.pair)).sorted() {
            let recs = recordings.filter { $0.pair == pair }
            for d in detectors { line(pair + (tuningPairs.contains(pair) ? " *" : ""), d, events.score(recs, d)) }
        }
        print("")
    }

    static func summary(tuning: [Recording], heldOut: [Recording], _ detectors: [Detector], _ events: StepEvents) {
        print("at \(Int(events.rate)) Hz:")
        print("")
        header("set")
        for d in detectors {
            line("held out", d, events.score(heldOut, d))
            line("tuning", d, events.score(tuning, d))
        }
        print("")
    }

    /// The rise around the chosen one, other constants fixed: what each dB buys and costs.
    static func riseSweep(heldOut: [Recording], tuning: [Recording], around p: TouchStep.Parameters, _ events: StepEvents) {
        print("rise sweep at \(Int(events.rate)) Hz (other constants as shipped):")
        print("")
        header("set")
        for rise in stride(from: 6.0, through: 16.0, by: 2.0) {
            var q = p
            q.rise = rise
            line("held out", .step(q), events.score(heldOut, .step(q)))
            line("tuning", .step(q), events.score(tuning, .step(q)))
        }
        print("")
    }

    /// Carried phones (pcng: two people 0.2–5 m apart, both phones in hand, in a pocket or in a
    /// backpack), each receiver's whole trace at its own timing: 10 s windows of each
    /// position, counted when the detector flagged touch in them. One side only (the two
    /// receivers' clocks are not aligned in the source).
    static func carried(folder: String, _ detectors: [Detector]) throws {
        print("")
        print("| detector | 0.2 m | ≥ 0.5 m |")
        print("| --- | ---: | ---: |")
        var traces: [Trace] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where name.contains(".csv") {
            if let t = try? TraceParser.parse(Recordings.read(folder + "/" + name)), t.hasTrueDistance { traces.append(t) }
        }
        for d in detectors {
            var near = (0, 0), far = (0, 0)
            for t in traces {
                let s = t.samples
                let flags = d.flags(s.map(\.time), s.map(\.rssi), .default)
                var start = 0
                while start < s.count {
                    let distance = s[start].trueDistance ?? .nan
                    var end = start
                    while end < s.count && s[end].trueDistance == distance { end += 1 }
                    // A walk (the distance changes from report to report): windows over the run.
                    if end - start < 3 { end = s.count }
                    var w = start
                    while w < end {
                        var e = w
                        while e < end && s[e].time - s[w].time < 10 { e += 1 }
                        let fired = flags[w..<e].contains(true)
                        if abs(distance - 0.2) < 1e-6 { near.1 += 1; if fired { near.0 += 1 } }
                        else if distance >= 0.5 { far.1 += 1; if fired { far.0 += 1 } }
                        w = e
                    }
                    start = end
                }
            }
            print("| \(d.name) | \(share(near.0, near.1)) | \(share(far.0, far.1)) |")
        }
        print("")
    }
}
