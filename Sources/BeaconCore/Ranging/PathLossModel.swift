#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Log-distance path loss: `rssi = A - 10 n log10(d)`, with A the RSSI at 1 m (dBm) and n the
/// path-loss exponent (2 in free space, 1.5–4 around people, cars and walls).
public struct PathLossModel: Sendable, Equatable, Hashable {
    /// A: RSSI at 1 m, dBm.
    public var txPower: Double
    /// n: path-loss exponent.
    public var exponent: Double

    /// A model with RSSI `txPower` dBm at 1 m falling off with exponent `exponent`:
    ///
    /// ```swift
    /// let model = PathLossModel(txPower: -59, exponent: 2)
    /// model.distance(forRSSI: -65)   // ≈ 2 m
    /// ```
    public init(txPower: Double, exponent: Double) {
        self.txPower = txPower
        self.exponent = exponent
    }

    /// What an iBeacon's "measured power" means and free space: −59 dBm at 1 m, n = 2. Used when
    /// neither a calibration nor the trace says otherwise.
    public static let `default` = PathLossModel(txPower: -59, exponent: 2.0)

    /// Sane bounds for a calibration: A from a deaf receiver to a transmitter at +20 dBm EIRP,
    /// n from a waveguide-like corridor (≈1) to heavy body and vehicle obstruction (≈6).
    public static let txPowerRange: ClosedRange<Double> = -120...20
    /// The exponents a calibration may have.
    public static let exponentRange: ClosedRange<Double> = 1.0...6.0

    /// Distances are reported within [1 mm, 10 km]: the model is meaningless beyond either end
    /// and the bound keeps absurd RSSI from producing infinities.
    public static let distanceRange: ClosedRange<Double> = 0.001...10_000

    /// Distance in metres at which the model expects `rssi`.
    @inlinable
    public func distance(forRSSI rssi: Double) -> Double {
        guard rssi.isFinite else { return rssi > 0 ? Self.distanceRange.lowerBound : Self.distanceRange.upperBound }
        // 10^x as 2^(x·log2 10): exp2 costs a third of pow, and this runs on every sample.
        let d = exp2((txPower - rssi) * (Self.log2Of10 / 10) / exponent)
        return min(Self.distanceRange.upperBound, max(Self.distanceRange.lowerBound, d))
    }

    @usableFromInline static let log2Of10 = 3.321928094887362

    /// RSSI the model expects at `distance` metres.
    @inlinable
    public func rssi(atDistance distance: Double) -> Double {
        txPower - 10 * exponent * log10(max(distance, Self.distanceRange.lowerBound))
    }

    /// Expected level at contact. Phones touching are a few centimetres apart antenna to antenna,
    /// so "contact" is the model's level at 5 cm: A + 10 n · 1.301.
    public var contactRSSI: Double { rssi(atDistance: 0.05) }
}
