import Foundation
import Synchronization

/// So many events per window, refilled continuously (a token bucket of `count` tokens that
/// refills completely in `window`).
public struct RateLimit: Sendable, Equatable {
    public var count: Int
    public var window: TimeInterval

    public init(count: Int, per window: TimeInterval) {
        self.count = count
        self.window = window
    }

    public static func perMinute(_ count: Int) -> RateLimit { RateLimit(count: count, per: 60) }
}

/// Token buckets by key (a client address, a token's hash), in this process's memory: several
/// servers behind one balancer each allow the full rate. Time comes from the server's clock so
/// tests can step it.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    let limit: RateLimit
    private let now: @Sendable () -> Date
    /// Past this many keys, full buckets (clients quiet for a whole window) are forgotten, so
    /// a flood of new addresses or tokens cannot grow memory without bound.
    private let sweepThreshold: Int
    /// Keys one call may examine while over the threshold.
    static let sweepPerCall = 4

    private struct State {
        var buckets: [String: Bucket] = [:]
        /// Keys oldest first (by when they were tracked or last re-queued); `head` is the oldest.
        /// The sweep looks only at the front, so each call does bounded work instead of scanning
        /// the whole map once per new key under a flood.
        var order: [String] = []
        var head = 0
        /// The most keys a single call examined (tests assert the bound).
        var mostExaminedInOneCall = 0
    }
    private let state = Mutex(State())

    /// The most keys a single call examined (tests assert the bound).
    var mostExaminedInOneCall: Int { state.withLock { $0.mostExaminedInOneCall } }

    init(_ limit: RateLimit, now: @escaping @Sendable () -> Date, sweepThreshold: Int = 50_000) {
        self.limit = limit
        self.now = now
        self.sweepThreshold = sweepThreshold
    }

    /// How many clients the limiter currently remembers.
    var trackedKeys: Int { state.withLock { $0.buckets.count } }

    private var refillPerSecond: Double { Double(limit.count) / limit.window }

    /// Whole seconds until `key` may act again, or nil when it may act now. Consumes nothing.
    func retryAfter(_ key: String) -> Int? {
        state.withLock { state in
            let bucket = refilled(key, at: now(), in: state)
            return bucket.tokens >= 1 ? nil : wait(for: bucket)
        }
    }

    /// Spends one event for `key`: nil when allowed, else the seconds to wait (nothing spent).
    func take(_ key: String) -> Int? {
        state.withLock { state in
            var bucket = refilled(key, at: now(), in: state)
            guard bucket.tokens >= 1 else { return wait(for: bucket) }
            bucket.tokens -= 1
            store(bucket, for: key, in: &state)
            return nil
        }
    }

    /// Gives back one event `take` spent (a reservation whose work succeeded), up to the limit.
    func refund(_ key: String) {
        state.withLock { state in
            var bucket = refilled(key, at: now(), in: state)
            bucket.tokens = min(Double(limit.count), bucket.tokens + 1)
            store(bucket, for: key, in: &state)
        }
    }

    /// Counts an event that already happened (a failed authentication), even past the limit.
    func record(_ key: String) {
        state.withLock { state in
            var bucket = refilled(key, at: now(), in: state)
            bucket.tokens = max(0, bucket.tokens - 1)
            store(bucket, for: key, in: &state)
        }
    }

    private func refilled(_ key: String, at time: Date, in state: State) -> Bucket {
        let capacity = Double(limit.count)
        guard var bucket = state.buckets[key] else { return Bucket(tokens: capacity, updated: time) }
        let elapsed = max(0, time.timeIntervalSince(bucket.updated))
        bucket.tokens = min(capacity, bucket.tokens + elapsed * refillPerSecond)
        bucket.updated = time
        return bucket
    }

    private func wait(for bucket: Bucket) -> Int {
        max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up)))
    }

    private func store(_ bucket: Bucket, for key: String, in state: inout State) {
        if state.buckets.updateValue(bucket, forKey: key) == nil { state.order.append(key) }
        guard state.buckets.count > sweepThreshold else { return }
        let time = now()
        let capacity = Double(limit.count)
        var examined = 0
        while examined < Self.sweepPerCall, state.head < state.order.count, state.buckets.count > sweepThreshold {
            let oldest = state.order[state.head]
            state.head += 1
            examined += 1
            guard let b = state.buckets[oldest] else { continue }
            let quiet = b.tokens + time.timeIntervalSince(b.updated) * refillPerSecond >= capacity
            // Past twice the threshold even a client mid-window is forgotten (its limit resets):
            // memory stays bounded when a flood keeps every bucket busy.
            if quiet || state.buckets.count > 2 * sweepThreshold {
                state.buckets[oldest] = nil
            } else {
                state.order.append(oldest)
            }
        }
        state.mostExaminedInOneCall = max(state.mostExaminedInOneCall, examined)
        // Drops the consumed front now and then; amortised O(1) per call.
        if state.head > 1024, state.head * 2 > state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }
}
