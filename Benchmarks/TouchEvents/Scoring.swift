import BeaconCore

/// Samples are replayed at 10 Hz, as ranging-eval does (real values, re-timed).
let rate = 10.0

/// Runs the product's ranger over a sample run (fresh, at the pair's line and this threshold)
/// and returns its touch column.
func touchFlags(_ rssi: ArraySlice<Double>, line: PathLossModel, threshold: Double) -> [Bool] {
    var ranger = Ranger(calibration: Calibration(model: line, touchRSSI: threshold))
    return rssi.enumerated().map { i, r in ranger.update(time: Double(i) / rate, rssi: r).touch }
}

/// Per-sample counts in ranging-eval's buckets and protocol: each position alone, its first
/// 300 samples, the first second not scored.
struct SampleCounts {
    var tp = 0, contact = 0, fa1030 = 0, near = 0, fa50 = 0, far = 0
    static func + (a: Self, b: Self) -> Self {
        SampleCounts(tp: a.tp + b.tp, contact: a.contact + b.contact, fa1030: a.fa1030 + b.fa1030,
                     near: a.near + b.near, fa50: a.fa50 + b.fa50, far: a.far + b.far)
    }
    var tpRate: Double { Double(tp) / Double(max(1, contact)) }
    var fa1030Rate: Double { Double(fa1030) / Double(max(1, near)) }
    var fa50Rate: Double { Double(fa50) / Double(max(1, far)) }
    /// The per-sample goals on false accepts (the detection goal is reported, not required).
    var meetsFalseAcceptGoals: Bool { fa1030Rate <= 0.005 && fa50 == 0 }
}

func sampleCounts(_ rec: Recording, line: PathLossModel, threshold: Double) -> SampleCounts {
    var c = SampleCounts()
    for p in rec.positions {
        let d = p.distance
        guard d <= 0.02 || (0.1...0.3).contains(d) || d >= 0.5 else { continue }
        let flags = touchFlags(p.rssi.prefix(300), line: line, threshold: threshold).dropFirst(Int(rate))
        let hits = flags.filter { $0 }.count
        if d <= 0.02 { c.tp += hits; c.contact += flags.count }
        else if d <= 0.3 { c.fa1030 += hits; c.near += flags.count }
        else { c.fa50 += hits; c.far += flags.count }
    }
    return c
}

/// Per-event counts: 2 s touches and 10 s holds at 10–30 cm.
struct EventCounts {
    var touches = 0, within1s = 0, within2s = 0, holds = 0, triggered = 0
    static func + (a: Self, b: Self) -> Self {
        EventCounts(touches: a.touches + b.touches, within1s: a.within1s + b.within1s, within2s: a.within2s + b.within2s,
                    holds: a.holds + b.holds, triggered: a.triggered + b.triggered)
    }
}

/// One constructed event: the samples before it (walking in) and the event's own samples.
struct Event {
    var leadIn: [Double]
    var body: [Double]
}

enum Events {
    static let touchSamples = Int(2 * rate), holdSamples = Int(10 * rate), leadInSamples = Int(3 * rate)
    /// Events cut from one position at most: long recordings must not outvote short ones.
    static let perPosition = 30

    /// 2 s touches: consecutive windows of a contact position, each after the last 3 s of the
    /// closest position ≥ 10 cm (the hand coming in from a few centimetres away: the smallest
    /// jump the detector must see). Holds: 10 s windows of each 10–30 cm position after 3 s of
    /// the closest position ≥ 50 cm.
    static func touches(_ rec: Recording) -> [[Event]] { cut(rec, where: { $0 <= 0.02 }, length: touchSamples, leadFrom: 0.1) }
    static func holds(_ rec: Recording) -> [[Event]] { cut(rec, where: { (0.1...0.3).contains($0) }, length: holdSamples, leadFrom: 0.5) }

    /// Events grouped by position (in recorded order), so the two sides of a test line up.
    static func cut(_ rec: Recording, where inBucket: (Double) -> Bool, length: Int, leadFrom: Double) -> [[Event]] {
        let leadCandidates = rec.positions.filter { $0.distance >= leadFrom }
        guard let lead = leadCandidates.min(by: { $0.distance < $1.distance }) else { return [] }
        let leadIn = Array(lead.rssi.suffix(leadInSamples))
        return rec.positions.filter { inBucket($0.distance) }.map { p in
            let windows = p.rssi.count / length
            let step = max(1, windows / perPosition)
            return stride(from: 0, to: windows, by: step).prefix(perPosition).map { w in
                Event(leadIn: leadIn, body: Array(p.rssi[(w * length)..<((w + 1) * length)]))
            }
        }
    }

    /// The touch column over the event's own samples (the lead-in warms the ranger up).
    static func flags(_ e: Event, line: PathLossModel, threshold: Double) -> [Bool] {
        Array(touchFlags((e.leadIn + e.body)[...], line: line, threshold: threshold).dropFirst(e.leadIn.count))
    }

    /// Mutual: at sample j both sides flagged touch somewhere in the last second (j-10…j).
    static func mutual(_ a: [Bool], _ b: [Bool]) -> [Bool] {
        let window = Int(rate)
        func recent(_ f: [Bool], _ j: Int) -> Bool { f[max(0, j - window)...j].contains(true) }
        return (0..<min(a.count, b.count)).map { recent(a, $0) && recent(b, $0) }
    }

    static func score(touch flags: [Bool], into c: inout EventCounts) {
        c.touches += 1
        if flags.prefix(Int(rate) + 1).contains(true) { c.within1s += 1 }
        if flags.contains(true) { c.within2s += 1 }
    }

    static func score(hold flags: [Bool], into c: inout EventCounts) {
        c.holds += 1
        if flags.contains(true) { c.triggered += 1 }
    }
}
