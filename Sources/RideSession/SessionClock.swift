import Foundation

/// Time as both sides of a ride see it. Cores never read a clock: their runtimes pass times in,
/// taken from one of these, so tests and the simulator drive them in virtual time.
///
/// ```swift
/// let clock: any SessionClock = SystemClock()
/// let slot = identity.slot(at: clock.unixTime)                          // which identity is current
/// try await clock.sleep(untilUnixTime: identity.start(of: slot + 1))     // the next one's boundary
/// ```
public protocol SessionClock: Sendable {
    /// Seconds on a monotonic timeline (durations, freshness, the guide's timeline).
    var now: Double { get }
    /// Wall-clock seconds since 1970: which identity slot is current, when a touch was seen.
    var unixTime: Double { get }
    /// Suspends until the wall clock reads `unixTime` (at once if it already does).
    func sleep(untilUnixTime unixTime: Double) async throws
    /// Suspends for `seconds`.
    func sleep(seconds: Double) async throws
    /// Where the machine's monotonic `instant` falls on `now`'s timeline: a radio's arrival
    /// stamp (`RadioSighting.receivedAt`) on the timeline the cores run on, so a sighting read
    /// late is still placed when it arrived. The default takes the instant's age off `now`.
    func now(at instant: ContinuousClock.Instant) -> Double
}

extension SessionClock {
    /// `now` less the instant's age on the machine's continuous clock.
    public func now(at instant: ContinuousClock.Instant) -> Double {
        now - (ContinuousClock.now - instant).sessionSeconds
    }
}

/// The machine's clocks: `now` counts from the clock's creation on the continuous clock,
/// `unixTime` is the system's wall clock.
public struct SystemClock: SessionClock {
    private let origin = ContinuousClock.now

    /// A clock whose `now` starts at 0.
    public init() {}

    /// Seconds since this clock was made, on the continuous clock.
    public var now: Double { (ContinuousClock.now - origin).sessionSeconds }

    /// The system's wall clock.
    public var unixTime: Double { Date().timeIntervalSince1970 }

    /// `instant` on this clock's timeline, exactly.
    public func now(at instant: ContinuousClock.Instant) -> Double { (instant - origin).sessionSeconds }

    /// Sleeps on the continuous clock for the wall-clock distance to `target`, rounded up.
    public func sleep(untilUnixTime target: Double) async throws {
        let wait = target - unixTime
        // Rounded up: waking a hair early would still be in the old slot.
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)))) }
    }

    /// Sleeps on the continuous clock, rounded up to the millisecond.
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var sessionSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
