import Guide
import Foundation
import RideRules
import RideSession

/// How a simulated passenger hears the car's locator ticks: whether a tick is audible over the
/// street, and where it seems to come from. Figures from published psychoacoustics (sources in
/// BENCHMARKS.md, "Locator sound: the listener model"); each is a parameter, so a benchmark can
/// ask what a noisier street or a quieter phone does.
public struct LocatorListener: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// The tick's level 1 m from the driver's device, dB(A) (a phone loudspeaker at full
        /// volume, for a short peak-normalised burst).
        public var levelAt1m = 85.0
        /// Street noise at the kerb, dB(A), drawn once per walk: a quiet side street to a busy road.
        public var streetNoise: ClosedRange<Double> = 55...70
        /// A closed car between the device and the kerb, dB (vehicle body insertion loss).
        public var closedCarLoss = 25.0
        /// How long the driver takes to open the window or step out after being asked, s.
        public var windowDelay = 6.0
        /// A tick is heard when its level is at least this far above the street noise, dB
        /// (a 30 ms broadband click in broadband noise).
        public var detectionSNR = -3.0
        /// From this many dB above detection on, localisation is as good as in quiet.
        public var comfortableMargin = 9.0
        /// Azimuth error (σ) straight ahead and the extra towards the side, degrees.
        public var frontalError = 3.0
        public var lateralExtraError = 9.0
        /// Front/back confusions of a first tick, and of later ones (moving the head between
        /// ticks resolves most), in quiet.
        public var firstConfusion = 0.06
        public var laterConfusion = 0.02
        /// Extra confusion probability, and error factor, just above detection (falling to 0 and
        /// 1 at `comfortableMargin`).
        public var marginalConfusion = 0.25
        public var marginalErrorFactor = 3.0
        public init() {}
    }

    public let parameters: Parameters
    /// This walk's street noise, dB(A).
    public let noiseLevel: Double
    private var rng: SeededRandom
    private var heardBefore = false

    public init(parameters: Parameters = Parameters(), rng: SeededRandom) {
        self.parameters = parameters
        self.rng = rng
        noiseLevel = self.rng.uniform(parameters.streetNoise)
    }

    /// The tick's level at `distance`, dB(A): spherical spreading from the 1 m level.
    public func level(atDistance distance: Double, carClosed: Bool) -> Double {
        parameters.levelAt1m - 20 * log10(max(distance, 0.3)) - (carClosed ? parameters.closedCarLoss : 0)
    }

    /// One tick from a source at `bearing` (radians, relative to where the listener faces,
    /// positive to the left) `distance` metres away. Returns where it seems to come from
    /// (same frame), or nil when it is not heard.
    public mutating func hear(bearing: Double, distance: Double, carClosed: Bool) -> Double? {
        localise(bearing: bearing, margin: level(atDistance: distance, carClosed: carClosed) - noiseLevel - parameters.detectionSNR)
    }

    /// A sound `margin` dB above its detection threshold (nil below it) from `bearing`: where it
    /// seems to come from. Near the threshold the error and front/back confusions grow
    /// (declared, not cited: docs/SIMULATOR.md).
    public mutating func localise(bearing: Double, margin: Double) -> Double? {
        guard margin >= 0 else { return nil }
        let weakness = max(0, 1 - margin / parameters.comfortableMargin)
        let sigma = (parameters.frontalError + parameters.lateralExtraError * abs(sin(bearing)))
            * (1 + (parameters.marginalErrorFactor - 1) * weakness) * .pi / 180
        var perceived = bearing + sigma * rng.gaussian()
        let confusion = (heardBefore ? parameters.laterConfusion : parameters.firstConfusion) + parameters.marginalConfusion * weakness
        heardBefore = true
        // Front and back give the same interaural differences: the mirror image across the ears' axis.
        if rng.chance(confusion) { perceived = (perceived >= 0 ? Double.pi : -Double.pi) - perceived }
        return wrapAngle(perceived)
    }
}

/// The ride service's locator rule for walks without a server (benchmarks, tests): RideRules'
/// `RideLimits.locatorRetryAfter`, at most one request per `minimumInterval`, each sounding
/// `soundSeconds` (as `POST /v1/rides/{id}/locator`).
public final class LocatorRequestPolicy {
    public let minimumInterval: Double
    public let soundSeconds: Double
    private var last: Double?
    public private(set) var requests = 0

    public init(minimumInterval: Double = LocatorRule.minimumInterval, soundSeconds: Double = Double(LocatorRule.soundSeconds)) {
        self.minimumInterval = minimumInterval
        self.soundSeconds = soundSeconds
    }

    public func request(at time: Double) -> LocatorAnswer {
        if let retryAfter = RideLimits.locatorRetryAfter(last: last, now: time, minimumInterval: minimumInterval) { return .tooSoon(retryAfter: retryAfter) }
        last = time
        requests += 1
        return .ticking(seconds: soundSeconds)
    }
}
