import Foundation
@testable import RideServer
import Testing
import RideBeaconTesting

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

    /// A flood of new keys cannot grow memory without bound: quiet, full buckets are forgotten,
    /// a few per call (never a scan of the whole map per new key).
    @Test func forgetsQuietClientsOnceItTracksTooMany() {
        let clock = SteppedClock()
        let limiter = RateLimiter(.perMinute(5), now: clock.reading, sweepThreshold: 100)
        for i in 0..<100 { _ = limiter.take("flood-\(i)") }
        #expect(limiter.trackedKeys == 100)
        clock.advance(60)
        // Each new key lets the sweep look at a few of the oldest: the quiet flood drains.
        for i in 0..<40 { _ = limiter.take("late-\(i)") }
        #expect(limiter.trackedKeys == 100, "held at the threshold while quiet keys remain")
        for i in 40..<100 { _ = limiter.take("late-\(i)") }
        #expect(limiter.trackedKeys <= 101)
        // A client mid-window is kept: forgetting it would reset its limit.
        for _ in 0..<3 { #expect(limiter.take("late-0") == nil) }
        #expect(limiter.take("late-0") == nil)
        #expect(limiter.take("late-0") != nil, "its bucket survived the sweeps, one event already spent")
        #expect(limiter.mostExaminedInOneCall <= RateLimiter.sweepPerCall)
    }

    /// Under a flood of busy keys memory stays below twice the threshold, with bounded work per call.
    @Test func busyFloodIsBoundedInMemoryAndWork() {
        let clock = SteppedClock()
        let limiter = RateLimiter(.perMinute(5), now: clock.reading, sweepThreshold: 100)
        for i in 0..<5_000 { _ = limiter.take("busy-\(i)") }
        #expect(limiter.trackedKeys <= 200)
        #expect(limiter.mostExaminedInOneCall <= RateLimiter.sweepPerCall)
    }
}
