#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One RSSI reading at a known distance.
public struct CalibrationSample: Sendable, Equatable {
    /// Metres.
    public var distance: Double
    /// dBm.
    public var rssi: Double

    /// A reading of `rssi` dBm at `distance` metres.
    public init(distance: Double, rssi: Double) {
        self.distance = distance
        self.rssi = rssi
    }
}

/// The result of fitting a path-loss model to samples at known distances.
public struct PathLossFit: Sendable, Equatable {
    /// The model the fit found.
    public var model: PathLossModel
    /// RMS of (measured − modelled) RSSI over every fitted sample, dB: how far any single
    /// reading can be trusted.
    public var residualRMS: Double
    /// Samples used by the fit (those at or beyond `PathLossCalibration.minimumFitDistance`).
    public var sampleCount: Int
    /// Distinct distances among them.
    public var distanceCount: Int
    /// True when the least-squares exponent fell outside `PathLossModel.exponentRange`.
    public var exponentClamped: Bool
    /// Suggested touch threshold, dBm (see `PathLossCalibration.touchThreshold`).
    public var touchRSSI: Double
    /// True when `touchRSSI` came from contact samples rather than from the model.
    public var touchMeasured: Bool
}

/// Why samples could not be fitted.
public enum CalibrationFitError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The far-field samples cover fewer than two distances, so the slope is undetermined.
    case tooFewDistances(found: Int)

    /// The problem in words, with what would fix it.
    public var description: String {
        switch self {
        case .tooFewDistances(let n):
            "need samples at 2 or more distinct distances ≥ \(FixedDecimal.format(PathLossCalibration.minimumFitDistance, places: 2)) m, found \(n)"
        }
    }
}

/// Least-squares calibration of `rssi = A - 10 n log10(d)`.
public enum PathLossCalibration {
    /// Closer than about one wavelength (12.5 cm at 2.4 GHz) the antennas couple and the
    /// far-field law does not hold; those samples only inform the touch threshold.
    public static let minimumFitDistance = 0.1
    /// Contact as the touch goal defines it: 0–2 cm.
    public static let contactDistance = 0.02
    /// Margin above the model's 5 cm level before a plateau counts as touch: a factor of two
    /// in power, because the model is extrapolated below its fitted range and a false touch
    /// confirms the wrong car while a missed one only asks for a longer touch.
    public static let touchGuard = 3.0

    /// Fits A and n. Each distance contributes its median RSSI with equal weight: medians resist
    /// the skewed multipath fades, and equal weights stop a long recording at one spot from
    /// dominating the slope.
    public static func fit(_ samples: [CalibrationSample]) throws(CalibrationFitError) -> PathLossFit {
        let usable = samples.filter { $0.distance >= minimumFitDistance && $0.rssi.isFinite && $0.distance.isFinite }
        var byDistance: [Double: [Double]] = [:]
        for s in usable { byDistance[(s.distance * 1000).rounded() / 1000, default: []].append(s.rssi) }
        guard byDistance.count >= 2 else { throw .tooFewDistances(found: byDistance.count) }

        let points = byDistance.keys.sorted().map { d in (x: -10 * log10(d), y: median(byDistance[d]!)) }
        let mx = points.map(\.x).reduce(0, +) / Double(points.count)
        let my = points.map(\.y).reduce(0, +) / Double(points.count)
        var sxx = 0.0, sxy = 0.0
        for p in points {
            sxx += (p.x - mx) * (p.x - mx)
            sxy += (p.x - mx) * (p.y - my)
        }
        let raw = sxy / sxx
        let range = PathLossModel.exponentRange
        let n = raw.isFinite ? min(range.upperBound, max(range.lowerBound, raw)) : range.lowerBound
        // With n fixed (perhaps clamped), the least-squares A is the mean offset.
        let a = my - n * mx
        let model = PathLossModel(txPower: a, exponent: n)

        var sumSquares = 0.0
        for s in usable {
            let r = s.rssi - model.rssi(atDistance: s.distance)
            sumSquares += r * r
        }
        let touch = touchThreshold(model: model, samples: samples)
        return PathLossFit(model: model, residualRMS: (sumSquares / Double(usable.count)).squareRoot(),
                           sampleCount: usable.count, distanceCount: points.count,
                           exponentClamped: !(raw.isFinite && range.contains(raw)),
                           touchRSSI: touch.level, touchMeasured: touch.measured)
    }

    /// Touch threshold: midway between the lower quartile of contact samples (≤ 2 cm) and the
    /// 95th percentile of samples at ≥ 10 cm when the recordings separate them; otherwise the
    /// level `TouchLevelRule.default` predicts from the fitted line.
    public static func touchThreshold(model: PathLossModel, samples: [CalibrationSample]) -> (level: Double, measured: Bool) {
        let fromModel = TouchLevelRule.default.threshold(for: model)
        let contact = samples.filter { $0.distance <= contactDistance }.map(\.rssi).sorted()
        let apart = samples.filter { $0.distance >= minimumFitDistance }.map(\.rssi).sorted()
        guard contact.count >= 5, apart.count >= 5 else { return (fromModel, false) }
        let low = quantile(contact, 0.25), high = quantile(apart, 0.95)
        guard low > high else { return (fromModel, false) }
        return ((low + high) / 2, true)
    }

    static func median(_ values: [Double]) -> Double { quantile(values.sorted(), 0.5) }

    /// Linear-interpolated quantile of sorted, non-empty values.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let i = Int(position)
        let frac = position - Double(i)
        return i + 1 < sorted.count ? sorted[i] + frac * (sorted[i + 1] - sorted[i]) : sorted[i]
    }
}
