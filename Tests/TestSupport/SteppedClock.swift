import Foundation
import Synchronization

/// A wall clock the test moves by hand (a server's `now`, a store's deadline), so "30 s later"
/// takes no time. The session runtimes' `SessionClock` is `VirtualClock`.
///
/// ```swift
/// let clock = SteppedClock()
/// let app = world.app(configure: { $0.now = clock.reading })
/// clock.advance(8 * 60)   // the ride is now eight minutes late
/// ```
public final class SteppedClock: Sendable {
    private let current: Mutex<Date>

    /// A clock reading `start` (by default a fixed instant in 2026, so runs are repeatable).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_605)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }
    /// Moves the clock on by `seconds` (back, for a negative value).
    public func advance(_ seconds: TimeInterval) { current.withLock { $0.addTimeInterval(seconds) } }
    /// `now` as the closure servers and stores take.
    public var reading: @Sendable () -> Date { { self.now } }
}
