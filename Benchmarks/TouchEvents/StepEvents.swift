import BeaconCore

/// A touch detector under test, run fresh on each side of each event: the touch column for
/// reports at `times` with levels `rssi`, given the pair's line (only the line rule uses it).
struct Detector: Sendable {
    var name: String
    var flags: @Sendable (_ times: [Double], _ rssi: [Double], _ line: PathLossModel) -> [Bool]

    /// The product's ranger with this touch tuning, at the calibration `calibration(line)`.
    static func ranger(_ name: String, touch: TouchDetector.Parameters,
                       calibration: @escaping @Sendable (PathLossModel) -> Calibration = { _ in Calibration(model: .default) }) -> Detector {
        Detector(name: name) { times, rssi, line in
            var ranger = Ranger(calibration: calibration(line), touch: touch)
            return zip(times, rssi).map { ranger.update(time: $0, rssi: $1).touch }
        }
    }

    /// As shipped (and before issue 34): the level rule alone at the default calibration's level (−33.5 dBm),
    /// which is what the guide and the driver's device ran with no calibration file.
    static let shippedLevel = ranger("shipped: level −33.5 dBm", touch: .default)
    /// The level rule at the pair's own line (`TouchLevelRule.default`): needs the line, which
    /// the guide does not learn (kept as issue 12's reference).
    static let pairLine = ranger("pair's line, A + 9.5 + 8 n", touch: .default) { Calibration(model: $0) }

    /// The step rule alone.
    static func step(_ p: TouchStep.Parameters) -> Detector {
        var touch = TouchDetector.Parameters()
        touch.step = p
        touch.level = false
        return ranger(String(format: "step %.0f dB, %.0f dB over %.0f s", p.rise, p.above, p.history), touch: touch)
    }

    /// The step rule, and (AND) the level rule at the pair's 1 m level + `floor` dB: what a
    /// line learnt on the way in could add (benchmark only; the product has no such floor).
    static func stepAboveLine(_ p: TouchStep.Parameters, floor: Double) -> Detector {
        Detector(name: String(format: "step and line A + %.0f dB", floor)) { times, rssi, line in
            let step = Detector.step(p).flags(times, rssi, line)
            var ranger = Ranger(calibration: Calibration(model: line, touchRSSI: line.txPower + floor))
            let level = zip(times, rssi).map { ranger.update(time: $0, rssi: $1).touch }
            return zip(step, level).map { $0 && $1 }
        }
    }

    /// The step rule with the level rule (−33.5 dBm) beside it (`TouchDetector.Parameters.withStep`).
    static func stepAndLevel(_ p: TouchStep.Parameters) -> Detector {
        var touch = TouchDetector.Parameters.withStep
        touch.step = p
        return ranger(String(format: "step %.0f dB + level −33.5 dBm", p.rise), touch: touch)
    }
}

/// Per-event scoring at any report rate (samples re-timed at `rate` Hz, ranging-eval's way).
struct StepEvents {
    var rate: Double
    /// Whether each lead-in starts with a walk: 1 s at each of the recording's positions from
    /// 3 m down to the lead position (20 cm apart at least, farthest first), so the detector's
    /// history holds the pair's own levels on the way in. Without it the history is the 3 s
    /// lead position alone (the harshest case: nothing to compare with but the last seconds).
    var walkIn = true

    /// One constructed event: the lead-in (the seconds before) and the event's own samples.
    struct Event {
        var leadIn: [Double]
        var body: [Double]
    }

    /// 2 s touches: each after the last 3 s of the closest position ≥ 10 cm (the smallest jump
    /// the detector must see), up to 30 per contact position.
    func touches(_ r: Recording) -> [[Event]] {
        cut(r, inBucket: { $0 <= 0.02 }, seconds: 2, lead: closest(r, from: 0.1), perPosition: 30)
    }

    /// 10 s holds at 10–30 cm, each after the last 3 s of the closest position ≥ 50 cm (walking
    /// up to the driver and stopping short of him), up to 30 per position.
    func holds(_ r: Recording) -> [[Event]] {
        cut(r, inBucket: { (0.1...0.3).contains($0) }, seconds: 10, lead: closest(r, from: 0.5), perPosition: 30)
    }

    /// 10 s at each position ≥ 50 cm, each after 3 s of the recording's weakest position ≥ 50 cm
    /// (the largest rise two far positions offer: out of a multipath null), up to 3 per position.
    func farHolds(_ r: Recording) -> [[Event]] {
        let far = r.positions.filter { $0.distance >= 0.5 }
        guard let weakest = far.min(by: { median($0.rssi) < median($1.rssi) }) else { return [] }
        return cut(r, inBucket: { $0 >= 0.5 }, seconds: 10, lead: weakest, perPosition: 3)
    }

    private func closest(_ r: Recording, from d: Double) -> Position? {
        r.positions.filter { $0.distance >= d }.min(by: { $0.distance < $1.distance })
    }

    private func cut(_ r: Recording, inBucket: (Double) -> Bool, seconds: Double, lead: Position?, perPosition: Int) -> [[Event]] {
        guard let lead else { return [] }
        let length = Int(seconds * rate)
        let leadIn = (walkIn ? walk(r, downTo: lead.distance) : []) + Array(lead.rssi.suffix(Int(3 * rate)))
        return r.positions.filter { inBucket($0.distance) }.map { p in
            let windows = p.rssi.count / length
            let step = max(1, windows / perPosition)
            return stride(from: 0, to: windows, by: step).prefix(perPosition).map { w in
                Event(leadIn: leadIn, body: Array(p.rssi[(w * length)..<((w + 1) * length)]))
            }
        }
    }

    private func walk(_ r: Recording, downTo distance: Double) -> [Double] {
        var out: [Double] = []
        var last = Double.infinity
        var seen = Set<Double>()
        let steps = r.positions.filter { $0.distance > distance + 1e-9 && $0.distance <= 3 + 1e-9 }.sorted { $0.distance > $1.distance }
        for p in steps where !seen.contains(p.distance) && p.distance <= last - 0.2 + 1e-9 {
            seen.insert(p.distance)
            last = p.distance
            out += p.rssi.suffix(Int(rate))
        }
        return out
    }

    /// The touch column over the event's own samples (the lead-in is the detector's history).
    func flags(_ e: Event, _ d: Detector, line: PathLossModel) -> [Bool] {
        let rssi = e.leadIn + e.body
        let times = rssi.indices.map { Double($0) / rate }
        return Array(d.flags(times, rssi, line).dropFirst(e.leadIn.count))
    }

    /// Mutual: at sample j both sides flagged touch in the last second.
    func mutual(_ a: [Bool], _ b: [Bool]) -> [Bool] {
        let window = Int(rate)
        func recent(_ f: [Bool], _ j: Int) -> Bool { f[max(0, j - window)...j].contains(true) }
        return (0..<min(a.count, b.count)).map { recent(a, $0) && recent(b, $0) }
    }
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.isEmpty ? .nan : s[s.count / 2]
}

/// Per-event counts: touches felt within 1 s and 2 s, holds (10–30 cm, ≥ 50 cm) that fired.
struct StepCounts {
    var touches = 0, within1s = 0, within2s = 0
    var holds = 0, holdsFired = 0
    var far = 0, farFired = 0
    static func + (a: Self, b: Self) -> Self {
        StepCounts(touches: a.touches + b.touches, within1s: a.within1s + b.within1s, within2s: a.within2s + b.within2s,
                   holds: a.holds + b.holds, holdsFired: a.holdsFired + b.holdsFired, far: a.far + b.far, farFired: a.farFired + b.farFired)
    }
    var detection: Double { Double(within2s) / Double(max(1, touches)) }
    var holdRate: Double { Double(holdsFired) / Double(max(1, holds)) }
}

/// One side and mutual counts for a set of recordings.
struct StepRow {
    var side = StepCounts()
    var mutual = StepCounts()
    static func + (a: Self, b: Self) -> Self { StepRow(side: a.side + b.side, mutual: a.mutual + b.mutual) }
}

extension StepEvents {
    func score(touch f: [Bool], into c: inout StepCounts) {
        c.touches += 1
        if let first = f.firstIndex(of: true) {
            if Double(first) <= rate { c.within1s += 1 }
            if Double(first) < 2 * rate { c.within2s += 1 }
        }
    }

    /// Scores `recs` with `d`: every side alone, and the two sides of each test together.
    func score(_ recs: [Recording], _ d: Detector) -> StepRow {
        var row = StepRow()
        var flagsByName: [String: (touches: [[[Bool]]], holds: [[[Bool]]], far: [[[Bool]]])] = [:]
        for r in recs {
            guard let line = r.line else { continue }
            let t = touches(r).map { $0.map { flags($0, d, line: line) } }
            let h = holds(r).map { $0.map { flags($0, d, line: line) } }
            let f = farHolds(r).map { $0.map { flags($0, d, line: line) } }
            for e in t.joined() { score(touch: e, into: &row.side) }
            for e in h.joined() { row.side.holds += 1; if e.contains(true) { row.side.holdsFired += 1 } }
            for e in f.joined() { row.side.far += 1; if e.contains(true) { row.side.farFired += 1 } }
            flagsByName[r.name] = (t, h, f)
        }
        for (a, b) in sidesOfOneTest(recs) {
            guard let fa = flagsByName[a.name], let fb = flagsByName[b.name] else { continue }
            for (pa, pb) in zip(fa.touches, fb.touches) { for (ea, eb) in zip(pa, pb) { score(touch: mutual(ea, eb), into: &row.mutual) } }
            for (pa, pb) in zip(fa.holds, fb.holds) {
                for (ea, eb) in zip(pa, pb) { row.mutual.holds += 1; if mutual(ea, eb).contains(true) { row.mutual.holdsFired += 1 } }
            }
            for (pa, pb) in zip(fa.far, fb.far) {
                for (ea, eb) in zip(pa, pb) { row.mutual.far += 1; if mutual(ea, eb).contains(true) { row.mutual.farFired += 1 } }
            }
        }
        return row
    }
}
