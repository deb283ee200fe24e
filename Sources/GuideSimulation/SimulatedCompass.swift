import Guide
import Foundation

/// The walker's phone compass, for turn-to-find in the simulator: the walker's heading as
/// compass degrees (clockwise from north), at a phone sensor's rate, with per-reading noise.
/// A steady bias would not matter (the car's heading is found in the compass's own frame), so
/// only the scatter is modelled. Its own random stream: walks without it draw what they drew.
public struct SimulatedCompass: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// Seconds between readings (10 Hz, a phone magnetometer's usual rate).
        public var interval = 0.1
        /// Scatter of one reading, σ, degrees (a phone near a car's steel).
        public var noise = 8.0
        public init() {}
    }

    public let parameters: Parameters
    private var rng: SeededRandom
    private var next = 0.0

    public init(parameters: Parameters = Parameters(), seed: UInt64) {
        self.parameters = parameters
        rng = SeededRandom(seed: seed ^ 0xC0FF_A55E)
    }

    /// A reading due by `time` for a walker facing `heading` (the simulator's radians,
    /// counterclockwise from +x), or nil between readings.
    public mutating func reading(at time: Double, heading: Double) -> Double? {
        guard time + 1e-9 >= next else { return nil }
        next = time + parameters.interval
        return Self.compassDegrees(heading: heading) + parameters.noise * rng.gaussian()
    }

    /// The simulator's heading (radians counterclockwise from +x, east) as compass degrees
    /// (clockwise from +y, north), in 0..<360.
    public static func compassDegrees(heading: Double) -> Double {
        HeadingBins.wrapped(90 - heading * 180 / .pi)
    }
}
