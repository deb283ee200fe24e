import BeaconCore

/// Per-sample counts of every recording at every step above its 1 m level (0…40 dB by 0.5),
/// computed once so that choosing a rule on a training set is a sum, not a replay.
struct StepTable {
    static let resolution = 0.5
    static let steps = Array(stride(from: 0.0, through: 40.0, by: resolution))
    /// Candidate rules: offset 0…30 dB by 0.5, 0…13 dB per unit n (13 is the far-field model).
    static let offsets = Array(stride(from: 0.0, through: 30.0, by: 0.5))
    static let perExponents = Array(stride(from: 0.0, through: 13.0, by: 1.0))

    private var counts: [String: [SampleCounts]] = [:]

    init(_ recordings: [Recording]) {
        for r in recordings {
            counts[r.name] = Self.steps.map { sampleCounts(r, line: r.line!, threshold: r.line!.txPower + $0) }
        }
    }

    func counts(_ r: Recording, step: Double) -> SampleCounts {
        let table = counts[r.name]!
        let i = Int((step / Self.resolution).rounded())
        return table[min(table.count - 1, max(0, i))]
    }

    /// The rule with the most contact samples detected on `training` among those meeting the
    /// false-accept goals there (≤ 0.5 % at 10–30 cm, none at ≥ 50 cm); ties go to the higher
    /// (safer) level.
    func best(for training: [Recording], perExponents: [Double] = StepTable.perExponents, everyPair: Bool = false) -> TouchLevelRule {
        var best = TouchLevelRule(offset: 40, perExponent: 0)
        var bestTP = -1.0
        let pairs = Dictionary(grouping: training, by: \.pair).values
        for k in perExponents {
            for offset in Self.offsets {
                let rule = TouchLevelRule(offset: offset, perExponent: k)
                let sum = training.reduce(SampleCounts()) { $0 + counts($1, step: rule.step(for: $1.line!)) }
                guard sum.meetsFalseAcceptGoals else { continue }
                if everyPair {
                    let safe = pairs.allSatisfy { recs in
                        recs.reduce(SampleCounts()) { $0 + counts($1, step: rule.step(for: $1.line!)) }.meetsFalseAcceptGoals
                    }
                    guard safe else { continue }
                }
                if sum.tpRate >= bestTP - 1e-12 { best = rule; bestTP = max(bestTP, sum.tpRate) }
            }
        }
        return best
    }
}
