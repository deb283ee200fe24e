import BeaconCore
import Foundation

/// Where a device's satellite fixes come from (issue 35): GeoClue2 on Linux (BlueZ's
/// `GeoClueLocation`, wrapped as a `StreamPositionSource`), a fixed `--position`, or a test's
/// script. `PositionSharing` reads it once.
///
/// ```swift
/// let source = try FixedPositionSource(parsing: "52.3702,4.8952,5")
/// for await fix in source.fixes() { print(fix.latitude, fix.longitude) }
/// ```
public protocol PositionSource: Sendable {
    /// The fixes as they come, newest last; the stream ends when the source does.
    func fixes() -> AsyncStream<GeoFix>
}

/// Any stream of fixes as a source (GeoClue's, a test's).
public struct StreamPositionSource: PositionSource {
    private let stream: AsyncStream<GeoFix>

    public init(_ stream: AsyncStream<GeoFix>) { self.stream = stream }

    /// The one stream (an AsyncStream has a single consumer: read it once).
    public func fixes() -> AsyncStream<GeoFix> { stream }
}

/// A position given by hand (`--position LAT,LON[,ACCURACY]`) where the device has no
/// receiver: the same place, with a fresh time every `refreshSeconds` so the service's copy
/// never looks stale, until the reader stops.
public struct FixedPositionSource: PositionSource {
    /// Accuracy when `--position` gives none, m: a phone outdoors in a city (assumed; issue 35's
    /// simulator fits the real spread).
    public static let defaultAccuracyMeters = 10.0

    public let latitude: Double
    public let longitude: Double
    public let accuracyMeters: Double
    public var refreshSeconds: Double = 5
    private let clock: any SessionClock

    /// Why a `--position` value cannot be used, in words naming the part at fault.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(latitude: Double, longitude: Double, accuracyMeters: Double = defaultAccuracyMeters,
                clock: any SessionClock = SystemClock()) throws(Invalid) {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw Invalid(description: "latitude must be -90 to 90 degrees, not \(latitude)")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw Invalid(description: "longitude must be -180 to 180 degrees, not \(longitude)")
        }
        guard accuracyMeters.isFinite, accuracyMeters > 0, accuracyMeters <= 10_000 else {
            throw Invalid(description: "accuracy must be more than 0 and at most 10000 metres, not \(accuracyMeters)")
        }
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyMeters = accuracyMeters
        self.clock = clock
    }

    /// `LAT,LON` or `LAT,LON,ACCURACY` (degrees, degrees, metres), e.g. `52.3702,4.8952,5`.
    public init(parsing text: String, clock: any SessionClock = SystemClock()) throws(Invalid) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard (2...3).contains(parts.count) else {
            throw Invalid(description: "expected LAT,LON or LAT,LON,ACCURACY (degrees, degrees, metres), not \"\(text)\"")
        }
        let names = ["latitude", "longitude", "accuracy"]
        var numbers: [Double] = []
        for (index, part) in parts.enumerated() {
            guard let number = Double(part), number.isFinite else {
                throw Invalid(description: "\(names[index]) must be a number, not \"\(part)\"")
            }
            numbers.append(number)
        }
        try self.init(latitude: numbers[0], longitude: numbers[1],
                      accuracyMeters: numbers.count == 3 ? numbers[2] : Self.defaultAccuracyMeters, clock: clock)
    }

    /// The fix as of now.
    public var fix: GeoFix {
        GeoFix(latitude: latitude, longitude: longitude, accuracyMeters: accuracyMeters, unixTime: clock.unixTime)
    }

    public func fixes() -> AsyncStream<GeoFix> {
        let (stream, continuation) = AsyncStream<GeoFix>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task { [self] in
            while !Task.isCancelled {
                continuation.yield(fix)
                do { try await clock.sleep(seconds: refreshSeconds) } catch { break }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
