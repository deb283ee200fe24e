import Foundation
@testable import RideServer
import Testing

@Suite("Rate limiter buckets")
struct RateLimiterTests {
    @Test func refillsContinuouslyAndSaysHowLongToWait() {
        let clock = SteppedClock()
        let limiter = RateLimiter(.perMinute(6), now: clock.reading)
        for _ in 0..<6 { #expect(limiter.take("a") == nil) }
        #expect(limiter.take("a") == 10, "one event per 10 s at 6 a minute")
        #expect(limiter.take("b") == nil, "keys are independent")
        clock.advance(4)
        #expect(limiter.retryAfter("a") == 6)
        clock.advance(6)
        #expect(limiter.take("a") == nil)
        #expect(limiter.take("a") == 10)
    }

    @Test func recordedFailuresCountPastTheLimitWithoutGoingBelowEmpty() {
        let clock = SteppedClock()
        let limiter = RateLimiter(.perMinute(2), now: clock.reading)
        for _ in 0..<5 { limiter.record("x") }
        #expect(limiter.retryAfter("x") == 30)
        clock.advance(30)
        #expect(limiter.retryAfter("x") == nil)
    }

    /// A flood of new keys cannot grow memory without bound: quiet, full buckets are forgotten.
    @Test func forgetsQuietClientsOnceItTracksTooMany() {
        let clock = SteppedClock()
        let limiter = RateLimiter(.perMinute(5), now: clock.reading, sweepThreshold: 100)
        for i in 0..<100 { _ = limiter.take("flood-\(i)") }
        #expect(limiter.trackedKeys == 100)
        clock.advance(60)
        _ = limiter.take("late")
        #expect(limiter.trackedKeys == 1, "only the client still being limited is remembered")
        // A client mid-window is kept: forgetting it would reset its limit.
        for i in 0..<100 { _ = limiter.take("busy-\(i)") }
        #expect(limiter.trackedKeys == 101)
        for _ in 0..<4 { #expect(limiter.take("late") == nil) }
        #expect(limiter.take("late") != nil, "its bucket survived the sweeps, one event already spent")
    }
}
