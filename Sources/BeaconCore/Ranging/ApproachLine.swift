#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Learns one pair's path-loss line while the passenger walks in, and from it the pair's touch
/// level (`TouchLevelRule`): calibration on the way in, no calibration run, no global dBm.
///
/// Feed it raw RSSI with the distance estimated at that moment by whatever knows it better than
/// the RSSI itself (the walked path, the guide's map, recorded positions in the benchmarks): a
/// line fitted against the ranger's own distance would only give back the model it started
/// from. Samples are kept as per-bin medians (10 bins per decade of distance from 10 cm to
/// 30 m), so memory is fixed and a long wait at one spot counts as one point, as in
/// `PathLossCalibration.fit`.
public struct ApproachLine: Sendable {
    /// Bins per decade of distance; 0.1 m … 30 m is 2.5 decades.
    static let binsPerDecade = 10.0
    static let nearest = 0.1, farthest = 30.0
    /// RSSI kept per bin (the most recent), enough for a stable median at 10 Hz walking pace.
    static let perBin = 32
    /// Fewest distinct bins, and least far/near ratio, before a slope means anything: three
    /// points over a factor of three in distance (≈5 dB of path loss at n = 1).
    public static let minimumBins = 3
    /// Far over near distance the bins must span (see `minimumBins`).
    public static let minimumSpan = 3.0

    private var bins: [RingBuffer<Double>]

    /// An empty line: no slope until enough bins fill.
    public init() {
        let count = Int((log10(Self.farthest / Self.nearest) * Self.binsPerDecade).rounded(.up))
        bins = (0..<count).map { _ in RingBuffer(capacity: Self.perBin, filler: 0) }
    }

    /// Adds one reading; distances outside 10 cm … 30 m and non-finite values are ignored
    /// (closer than a wavelength the far-field line does not hold).
    public mutating func add(distance: Double, rssi: Double) {
        guard distance.isFinite, rssi.isFinite, distance >= Self.nearest, distance < Self.farthest else { return }
        let i = Int(log10(distance / Self.nearest) * Self.binsPerDecade)
        guard bins.indices.contains(i) else { return }
        bins[i].append(rssi)
    }

    /// The pair's line, once the approach covered enough distances; nil before.
    public var line: PathLossModel? {
        var samples: [CalibrationSample] = []
        var used: [Int] = []
        for (i, bin) in bins.enumerated() where bin.count > 0 {
            used.append(i)
            let centre = Self.nearest * pow(10, (Double(i) + 0.5) / Self.binsPerDecade)
            for k in 0..<bin.count { samples.append(CalibrationSample(distance: centre, rssi: bin[k])) }
        }
        guard used.count >= Self.minimumBins, let first = used.first, let last = used.last,
              pow(10, Double(last - first + 1) / Self.binsPerDecade) >= Self.minimumSpan,
              let fit = try? PathLossCalibration.fit(samples) else { return nil }
        return fit.model
    }

    /// The calibration this approach supports: its line and that line's touch level.
    public func calibration(rule: TouchLevelRule = .default) -> Calibration? {
        guard let line else { return nil }
        return Calibration(model: line, touchRSSI: rule.threshold(for: line), source: "approach")
    }
}
