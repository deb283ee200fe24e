import Guide
import Foundation

/// The simulated radio channel between the car's beacon and the passenger's phone: what RSSI
/// (if any) each 10 Hz advert arrives with.
///
/// - Log-distance path loss with a per-run exponent and 1 m level (the guide's ranger assumes
///   the iBeacon defaults, −59 dBm and n = 2, so each run is a slightly miscalibrated world).
/// - Log-normal shadowing, spatially correlated (Gudmundson: correlation e^(−Δd/d_c) over the
///   distance the receiver moved), because parked cars and people shadow a region, not a packet.
/// - Rician fading: a direct path plus scatter whose phase decorrelates over half a wavelength
///   of motion (6 cm at 2.4 GHz) and, more slowly, over time (people and traffic moving).
/// - Body shadowing: the passenger's body blocks the direct path when they face away.
/// - Advert loss: a base rate plus losses near the receiver's sensitivity.
/// Within a metre the direct path dominates: exponent, shadowing and scatter fade out, so two
/// devices held together read the contact level a touch detector expects.
public struct ChannelModel: Sendable {
    public struct Parameters: Sendable, Equatable {
        public var txPowerAt1m: Double
        public var exponent: Double
        public var shadowingSigma: Double
        public var shadowingDecorrelation: Double
        /// Rician K factor (direct / scattered power), linear.
        public var ricianK: Double
        public var scatterDecorrelationDistance: Double
        public var scatterDecorrelationTime: Double
        /// Attenuation with the passenger's back to the car, dB.
        public var bodyLoss: Double
        public var baseLoss: Double
        public var sensitivity: Double
        /// A real phone pair's last metre (the street): within it the level and its spread are
        /// the pair's own, and `txPowerAt1m` is the pair's 1 m level. Nil: the direct-path rule.
        public var nearField: NearField? = nil

        /// A kerbside world from the ranges used before the fit to real traces (exponent
        /// 1.8–2.4, shadowing 2–4 dB, K 3–9 dB, body 5–10 dB): kinder than the real walks
        /// (`make sim-fidelity`). The default now is `calibrated` (ChannelFit.swift).
        public static func random(_ rng: inout SeededRandom) -> Parameters {
            Parameters(txPowerAt1m: -59 + 2 * rng.gaussian(),
                       exponent: rng.uniform(1.8...2.4),
                       shadowingSigma: rng.uniform(2...4),
                       shadowingDecorrelation: rng.uniform(2...5),
                       ricianK: pow(10, rng.uniform(3...9) / 10),
                       scatterDecorrelationDistance: 0.06,
                       scatterDecorrelationTime: 0.5,
                       bodyLoss: rng.uniform(5...10),
                       baseLoss: rng.uniform(0.05...0.2),
                       sensitivity: -100)
        }

        /// No shadowing, fading, body or loss: the mean path loss alone (scripted tests).
        public static let ideal = Parameters(txPowerAt1m: -59, exponent: 2, shadowingSigma: 0, shadowingDecorrelation: 3,
                                             ricianK: .infinity, scatterDecorrelationDistance: 0.06,
                                             scatterDecorrelationTime: 0.5, bodyLoss: 0, baseLoss: 0, sensitivity: -120)
    }

    public let parameters: Parameters
    private var rng: SeededRandom
    private var shadowing = 0.0
    private var scatter = (i: 0.0, q: 0.0)
    private var last: (time: Double, position: Point)?

    public init(parameters: Parameters, rng: SeededRandom) {
        self.parameters = parameters
        self.rng = rng
    }

    /// Mean level at `distance` (no shadowing or fading), dBm.
    public func meanRSSI(atDistance distance: Double) -> Double {
        if let near = parameters.nearField, distance < 1 { return near.level(atDistance: distance).mean }
        let d = max(distance, 0.005)
        // Under a metre the direct path dominates: free-space slope whatever the street's exponent.
        let n = d < 1 ? 2.0 : parameters.exponent
        return parameters.txPowerAt1m - 10 * n * log10(d)
    }

    /// One advert from the beacon at `source` to a receiver at `receiver` facing `facing`
    /// (radians), through `extraLoss` dB of obstacles: its RSSI as a controller reports it
    /// (whole dBm), or nil when it is lost.
    public mutating func receive(at time: Double, receiver: Point, facing: Double,
                                 source: Point = Point(x: 0, y: 0), extraLoss: Double = 0) -> Int8? {
        let distance = receiver.distance(to: source)
        let moved = last.map { receiver.distance(to: $0.position) } ?? .infinity
        let elapsed = last.map { max(0, time - $0.time) } ?? .infinity
        last = (time, receiver)
        // Close in, the surroundings matter less: scale the random parts down inside a metre.
        let farness = min(1, distance)

        let rhoShadow = exp(-moved / parameters.shadowingDecorrelation)
        shadowing = rhoShadow * shadowing + (1 - rhoShadow * rhoShadow).squareRoot() * parameters.shadowingSigma * rng.gaussian()

        let rhoScatter = exp(-moved / parameters.scatterDecorrelationDistance - elapsed / parameters.scatterDecorrelationTime)
        let innovation = (1 - rhoScatter * rhoScatter).squareRoot()
        scatter.i = rhoScatter * scatter.i + innovation * rng.gaussian() / 2.0.squareRoot()
        scatter.q = rhoScatter * scatter.q + innovation * rng.gaussian() / 2.0.squareRoot()
        var fading = 0.0
        if parameters.ricianK.isFinite {
            // Within a metre the direct path dwarfs the scatter: K grows as 1/d².
            let k = parameters.ricianK / (farness * farness)
            let direct = (k / (k + 1)).squareRoot()
            let spread = (1 / (k + 1)).squareRoot()
            let i = direct + spread * scatter.i, q = spread * scatter.q
            fading = 10 * log10(max(i * i + q * q, 1e-6))
        }

        let away = abs(wrapAngle(receiver.bearing(to: source) - facing))
        let body = away > .pi / 2 ? parameters.bodyLoss * farness * (away - .pi / 2) / (.pi / 2) : 0

        // Within a real pair's last metre its own measured spread replaces shadowing and fading.
        let nearSpread = parameters.nearField.map { near -> Double in distance < 1 ? near.level(atDistance: distance).sd * rng.gaussian() : 0 }
        let random = nearSpread.map { distance < 1 ? $0 : shadowing + fading } ?? (farness * shadowing + fading)
        let rssi = meanRSSI(atDistance: distance) + random - body - extraLoss
        let margin = rssi - parameters.sensitivity
        let lossProbability = parameters.baseLoss + (1 - parameters.baseLoss) / (1 + exp(margin / 1.5))
        if rng.chance(lossProbability) { return nil }
        return Int8(clamping: Int(rssi.rounded()))
    }
}
