import Guide

/// Whether what the guide says is true, judged against the simulator's truth, strictly
/// (issue 21): "More than N" is true only when the truth is at least N, "About N" within 2×,
/// "Very close" within the guide's reach for it. A contradiction, wherever it happens in the
/// walk: a number farther than the last one spoken while "closer" is said (or nearer with
/// "moving away"); a band that moves against the truth's direction since the last one spoken;
/// the opposite trend word less than 3 s after the other.
struct SpokenTruth {
    static let contradictionWindow = 3.0
    private(set) var distances = 0
    private(set) var claimsTrue = 0
    /// The earlier, lenient reading (`SpokenDistance.isWithin2x`), kept for the old-vs-new table.
    private(set) var within2x = 0
    private(set) var contradictions = 0
    /// Each contradiction and false claim, for transcripts and tests.
    private(set) var findings: [String] = []
    private var lastBand: (band: DistanceBands.Band, time: Double, truth: Double)?
    private var lastTrend: (closer: Bool, time: Double)?

    mutating func note(_ utterance: Utterance, band: DistanceBands.Band?, at time: Double, trueDistance: Double) {
        let saysDistance = utterance.keys.contains { $0 == .guideAboutMeters || $0 == .guideMoreThanMeters || $0 == .guideVeryClose || $0.isFarDistance }
        let trendWord = utterance.keys.first { $0 == .guideGettingCloser || $0 == .guideMovingAway }.map { $0 == .guideGettingCloser }
        if saysDistance, let band {
            distances += 1
            if SpokenDistance.isTrue(band, trueDistance) { claimsTrue += 1 } else { findings.append("false: \(utterance.text) at \(trueDistance) m") }
            if SpokenDistance.isWithin2x(band, trueDistance) { within2x += 1 }
            if let last = lastBand, last.band != band {
                let farther = last.band < band
                let againstTruth = farther ? trueDistance < last.truth : trueDistance > last.truth
                let againstWord = trendWord.map { $0 == farther } ?? false
                if againstTruth || againstWord {
                    contradictions += 1
                    findings.append("contradiction: \(utterance.text) at \(trueDistance) m after \(last.band) at \(last.truth) m")
                }
            }
            lastBand = (band, time, trueDistance)
        }
        if let closer = trendWord {
            if let last = lastTrend, last.closer != closer, time - last.time < Self.contradictionWindow {
                contradictions += 1
                findings.append("contradiction: \(utterance.text) \(time - last.time) s after the opposite word")
            }
            lastTrend = (closer, time)
        }
    }
}

public enum SpokenDistance {
    /// The strict reading, the claim's own interval (`DistanceBands.Band.isTrue`): "More than
    /// N" only when the truth is at least N, "About N" when N/2 ≤ truth ≤ 2N, "Very close" when
    /// the truth is within the guide's limit for it.
    public static func isTrue(_ band: DistanceBands.Band, _ truth: Double) -> Bool { band.isTrue(atDistance: truth) }

    /// The earlier, lenient reading: "more than N" when truth ≥ N/2, "very close" when ≤ 2.4 m.
    public static func isWithin2x(_ band: DistanceBands.Band, _ truth: Double) -> Bool {
        switch band {
        case .veryClose: truth <= DistanceBands.veryCloseLimit
        case .about(let n): truth >= Double(n) / 2 && truth <= Double(n) * 2
        case .moreThan(let n): truth >= Double(n) / 2
        }
    }
}
