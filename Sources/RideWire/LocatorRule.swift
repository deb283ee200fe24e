import Foundation

/// The ride service's locator rule (`POST /v1/rides/{id}/locator`), defined once for the
/// server, both sides' cores and the simulator: a passenger may ask the car to sound its
/// locator at most once per `minimumInterval`; each request makes the driver's device tick for
/// `soundSeconds` (unless the devices touch first). The server's `LocatorConfiguration`
/// defaults to these; a deployment may change them, and says so in each `LocatorRequest`.
///
/// ```swift
/// // The guide does not ask again while the car is still ticking:
/// let repeatAfter = Double(LocatorRule.soundSeconds)
/// ```
public enum LocatorRule {
    /// Least time between two locator requests of one ride, s (`rate_limited` sooner).
    public static let minimumInterval: Double = 10
    /// How long the driver's device ticks after a request, s (`LocatorRequest.soundSeconds`).
    public static let soundSeconds = 30
}
