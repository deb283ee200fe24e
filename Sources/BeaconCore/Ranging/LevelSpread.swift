/// How far the raw samples swing around their own mean over the last few seconds: what the
/// signal itself shows of a body or a bag between the phones (issue 23). A phone resting or
/// held still reads within 1–3 dB; carried in a pocket or a backpack, with people walking and
/// turning, the same distance swings 5–8 dB (pcng: 3–4 dB in hand, 5–7 dB in pockets and bags,
/// the standard deviation of the reports at one distance; herald's cable-car phones 0.1–2.6 dB).
///
/// The population standard deviation of the samples no older than `window` seconds before the
/// newest one, at most the newest `capacity` of them (at 10 Hz, 5 s is 50 samples). Allocation
/// free per sample. `Benchmarks/CarriedRanging/claims.py` computes the same figure in Python
/// to choose the constants that use it; keep the two in step.
public struct LevelSpread: Sendable {
    /// Seconds of samples looked at.
    public static let window = 5.0
    /// Most samples kept.
    public static let capacity = 64

    private var times: RingBuffer<Double>
    private var levels: RingBuffer<Double>

    /// An empty window.
    public init() {
        times = RingBuffer(capacity: Self.capacity, filler: 0)
        levels = RingBuffer(capacity: Self.capacity, filler: 0)
    }

    /// Adds one raw sample (non-finite values are ignored).
    public mutating func add(time: Double, rssi: Double) {
        guard time.isFinite, rssi.isFinite else { return }
        times.append(time)
        levels.append(rssi)
    }

    /// Samples counted in `value`.
    public var count: Int {
        guard let newest = times.newest else { return 0 }
        var n = 0
        for i in stride(from: times.count - 1, through: 0, by: -1) where newest - times[i] <= Self.window { n += 1 }
        return n
    }

    /// Standard deviation, dB, of the samples within `window` of the newest (0 with fewer than two).
    public var value: Double {
        guard let newest = times.newest else { return 0 }
        var n = 0.0, sum = 0.0, squares = 0.0
        for i in 0..<levels.count where newest - times[i] <= Self.window {
            n += 1
            sum += levels[i]
            squares += levels[i] * levels[i]
        }
        guard n >= 2 else { return 0 }
        let mean = sum / n
        return max(0, squares / n - mean * mean).squareRoot()
    }

    /// Forgets every level (a new signal, or one back after silence).
    public mutating func reset() {
        times.removeAll()
        levels.removeAll()
    }
}
