import Foundation

/// Time as both sides of a ride see it. Cores never read a clock: their runtimes pass times in,
/// taken from one of these, so tests and the simulator drive them in virtual time.
public protocol SessionClock: Sendable {
    /// Seconds on a monotonic timeline (durations, freshness, the guide's timeline).
    var now: Double { get }
    /// Wall-clock seconds since 1970: which identity slot is current, when a touch was seen.
    var unixTime: Double { get }
    /// Suspends until the wall clock reads `unixTime` (at once if it already does).
    func sleep(untilUnixTime unixTime: Double) async throws
    /// Suspends for `seconds`.
    func sleep(seconds: Double) async throws
}

/// The machine's clocks.
public struct SystemClock: SessionClock {
    private let origin = ContinuousClock.now

    public init() {}

    public var now: Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    public var unixTime: Double { Date().timeIntervalSince1970 }

    public func sleep(untilUnixTime target: Double) async throws {
        let wait = target - unixTime
        // Rounded up: waking a hair early would still be in the old slot.
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)))) }
    }

    public func sleep(seconds: Double) async throws {
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}
