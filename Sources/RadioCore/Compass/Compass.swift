/// One compass reading: where the device points, clockwise from north, and when it was read.
public struct CompassReading: Equatable, Sendable {
    /// Degrees clockwise from (magnetic) north, in 0..<360.
    public var degrees: Double
    /// Wall-clock time of the reading, µs since 1970 (as `RadioSighting.unixMicroseconds`).
    public var unixMicroseconds: Int64

    /// A reading; `degrees` is wrapped into 0..<360.
    public init(degrees: Double, unixMicroseconds: Int64) {
        self.degrees = CompassReading.wrapped(degrees)
        self.unixMicroseconds = unixMicroseconds
    }

    /// `degrees` in 0..<360 (−10 → 350, 370 → 10).
    public static func wrapped(_ degrees: Double) -> Double {
        let r = degrees.truncatingRemainder(dividingBy: 360)
        let positive = r < 0 ? r + 360 : r
        return positive >= 360 ? 0 : positive
    }
}

/// The compass seam, C-free like the `Radio` protocol: a heading source the passenger guide
/// (turn-to-find) reads. The real one is iio-sensor-proxy over D-Bus (`SensorProxyCompass` in
/// the BlueZ module); tests and the simulator feed `GuideCore` headings directly.
///
/// ```swift
/// let compass: any Compass = try await SensorProxyCompass.open()
/// for await reading in compass.readings { print(reading.degrees) }
/// await compass.release()
/// ```
public protocol Compass: Sendable {
    /// Human-readable name for logs ("iio-sensor-proxy").
    var name: String { get }
    /// Readings as the sensor reports them (only changes: a still phone may be silent); the
    /// stream ends when the compass is lost (sensor gone, service gone, bus closed). One consumer.
    var readings: AsyncStream<CompassReading> { get }
    /// Gives the sensor back (it is powered only while claimed) and ends `readings`.
    func release() async
}
