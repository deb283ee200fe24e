/// Whether what the guide says is true, judged against the simulator's truth: spoken distances
/// within 2× of the true distance, and no phrase contradicting one spoken less than 3 s before
/// (another distance band, or the opposite trend word). Issue 16's "what is said is true".
struct SpokenTruth {
    static let contradictionWindow = 3.0
    private(set) var distances = 0
    private(set) var within2x = 0
    private(set) var contradictions = 0
    private var lastBand: (band: DistanceBands.Band, time: Double)?
    private var lastTrend: (closer: Bool, time: Double)?

    mutating func note(_ utterance: Utterance, band: DistanceBands.Band?, at time: Double, trueDistance: Double) {
        let saysDistance = utterance.keys.contains { $0 == .aboutMeters || $0 == .moreThanMeters || $0 == .veryClose }
        if saysDistance, let band {
            distances += 1
            if SpokenDistance.isWithin2x(band, trueDistance) { within2x += 1 }
            if let last = lastBand, last.band != band, time - last.time < Self.contradictionWindow { contradictions += 1 }
            lastBand = (band, time)
        }
        for key in utterance.keys where key == .gettingCloser || key == .movingAway {
            let closer = key == .gettingCloser
            if let last = lastTrend, last.closer != closer, time - last.time < Self.contradictionWindow { contradictions += 1 }
            lastTrend = (closer, time)
        }
    }

}

public enum SpokenDistance {
    /// "About N" is within 2× when N/2 ≤ truth ≤ 2N; "more than N" when truth ≥ N/2; "very
    /// close" (within reach, 1.2 m) when truth ≤ 2.4 m.
    public static func isWithin2x(_ band: DistanceBands.Band, _ truth: Double) -> Bool {
        switch band {
        case .veryClose: truth <= DistanceBands.edges[0].upper * 2
        case .about(let n): truth >= Double(n) / 2 && truth <= Double(n) * 2
        case .moreThan(let n): truth >= Double(n) / 2
        }
    }
}
