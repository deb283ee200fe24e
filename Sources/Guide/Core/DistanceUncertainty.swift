import BeaconCore
import Foundation

/// How far off a distance read from one filtered level can be, so the guide speaks only what
/// it can stand behind (issue 16, "what is said is true"): a bound on the distance from the
/// level, the pair's possible path-loss lines and the level's own error.
///
/// Without a calibration the pair's line is not known: real walks fit exponents 1.1–2.1 and 1 m
/// levels 4 dB apart (BENCHMARKS.md, "Simulated channel fitted to real traces"), so −80 dBm is
/// 9 m at n = 2.1 and 60 m at n = 1.1. The filtered level sits within a few dB *above* the
/// mean path loss (fast fading is skewed down, the filter is median-like) but up to 10 dB and
/// more *below* it (a body or a turned back between phone and car): the lower distance bound
/// is tight, the upper one loose.
public struct DistanceUncertainty: Sendable, Equatable {
    /// Exponents this pair's line may have.
    public var exponents: ClosedRange<Double>
    /// How far the filtered level may sit above the line's mean at the true distance, dB
    /// (the 1 m level's uncertainty included): sets the lower distance bound.
    public var levelAbove: Double
    /// How far it may sit below, dB: sets the upper distance bound.
    public var levelBelow: Double

    public init(exponents: ClosedRange<Double>, levelAbove: Double, levelBelow: Double) {
        self.exponents = exponents
        self.levelAbove = levelAbove
        self.levelBelow = levelBelow
    }

    /// No calibration: the exponents real walks fit (1.13–2.10, `fixtures/channel-fit.json`),
    /// the level within 4 dB above the line (the filtered level's 95th percentile on the
    /// calibrated channel is +2.5 dB, plus the 1 m level's spread) and 9 dB below (its 5th
    /// percentile is −7 to −11 dB: body loss).
    public static let uncalibrated = DistanceUncertainty(exponents: 1.1...2.1, levelAbove: 4, levelBelow: 9)

    /// A fitted line (`ridebeacon calibrate`, or the pair's `ApproachLine`): its exponent give
    /// or take 0.1, the 1 m level known, and the fit's residual spread `residual` (dB, per
    /// sample) for the level's: 0.6× above (the filter averages the fast part) and 1.2× below
    /// (body fades are skewed down), at least 2 and 3 dB. A clean fit (2 dB) supports numbers
    /// from a few metres to 20 m; the real walks' 5 dB only bounds.
    public static func fitted(_ model: PathLossModel, residual: Double) -> DistanceUncertainty {
        let n = model.exponent
        return DistanceUncertainty(exponents: max(1, n - 0.1)...(n + 0.1),
                                   levelAbove: max(2, 0.6 * residual), levelBelow: max(3, 1.2 * residual))
    }

    /// The residual assumed for a line without one (an `ApproachLine`'s): the real walks' 5 dB.
    public static let walkingResidual = 5.0

    /// The uncertainty a calibration supports: fitted when it carries a fit residual or is the
    /// pair's approach line, else the uncalibrated prior (the iBeacon defaults, −59 dBm and
    /// n = 2, are a guess, not a fit).
    public init(calibration: Calibration) {
        if let residual = calibration.residual, residual.isFinite, residual >= 0 {
            self = Self.fitted(calibration.model, residual: residual)
        } else if calibration.source == "approach" {
            self = Self.fitted(calibration.model, residual: Self.walkingResidual)
        } else {
            self = Self.uncalibrated
        }
    }

    /// The distances, metres, that `level` (dBm) is compatible with under `model`'s 1 m level.
    public func bounds(level: Double, model: PathLossModel) -> (low: Double, high: Double) {
        guard level.isFinite else { return (.nan, .nan) }
        func distance(_ loss: Double, _ n: Double) -> Double { pow(10, loss / (10 * n)) }
        let nearLoss = model.txPower - (level + levelAbove)
        let farLoss = model.txPower - (level - levelBelow)
        let low = min(distance(nearLoss, exponents.lowerBound), distance(nearLoss, exponents.upperBound))
        let high = max(distance(farLoss, exponents.lowerBound), distance(farLoss, exponents.upperBound))
        return (low, high)
    }
}
