/// The spoken distance bands with hysteresis, so a passenger standing near an edge hears one
/// band, not an alternation. Estimated distance errors are multiplicative (dB), so the margin
/// is a ratio: a band is left only once the estimate is `margin` past its edge.
public struct DistanceBands: Sendable {
    public enum Band: Equatable, Sendable, Comparable {
        /// "Very close, reach out."
        case veryClose
        /// "About N meters."
        case about(Int)
        /// "More than N meters."
        case moreThan(Int)

        var rank: Int {
            switch self {
            case .veryClose: 0
            case .about(let n): n
            case .moreThan(let n): n + 1000
            }
        }
        public static func < (a: Band, b: Band) -> Bool { a.rank < b.rank }
    }

    /// Upper edges, metres, and the band below each; the last band has no upper edge.
    static let edges: [(upper: Double, band: Band)] = [
        (1.2, .veryClose), (4.5, .about(3)), (8, .about(6)), (12.5, .about(10)), (17.5, .about(15)), (25, .about(20)),
    ]
    static let beyond = Band.moreThan(20)
    /// 20 %: about 1.6 dB at n = 2, four times the filtered level's jitter at rest.
    public static let margin = 0.2

    public private(set) var band: Band?

    public init() {}

    /// The band one step farther than `band` (the last stays the last).
    static func next(after band: Band) -> Band {
        guard let index = edges.firstIndex(where: { $0.band == band }) else { return beyond }
        return index + 1 < edges.count ? edges[index + 1].band : beyond
    }

    static func plain(_ distance: Double) -> Band {
        edges.first { distance < $0.upper }?.band ?? beyond
    }

    /// The band for `distance`, sticking to the current one until the estimate is clearly out.
    public mutating func update(distance: Double) -> Band? {
        guard distance.isFinite else { return band }
        let candidate = Self.plain(distance)
        guard let current = band, candidate != current else {
            band = candidate
            return band
        }
        let index = Self.edges.firstIndex { $0.band == current } ?? Self.edges.count
        let lower = index == 0 ? 0 : Self.edges[index - 1].upper
        let upper = index < Self.edges.count ? Self.edges[index].upper : Double.infinity
        if distance < lower * (1 - Self.margin) || distance > upper * (1 + Self.margin) {
            band = Self.plain(distance)
        }
        return band
    }

    public mutating func reset() { band = nil }
}
