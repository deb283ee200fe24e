import Foundation
import Logging
import RideStore
import ServiceLifecycle

/// How long finished requests keep their pickup, drop-off and accessibility notes (personal
/// data), and how often the server looks for ones past that.
public struct LocationRetention: Sendable, Equatable {
    public static let days = 1...3650
    public var days: Int
    public var checkInterval: Duration

    public init(days: Int, checkInterval: Duration = .seconds(3600)) {
        self.days = days
        self.checkInterval = checkInterval
    }

    /// Requests that ended before this are purged.
    public func cutoff(now: Date) -> Date {
        now.addingTimeInterval(-Double(days) * 86_400)
    }
}

/// How long stored results of keyed writes (Idempotency-Key) are kept: they copy whole
/// requests, and for an accept the ride key, so they must not outlive their purpose (retries).
public struct IdempotencyRetention: Sendable, Equatable {
    public static let hours = 1...8760
    public var age: Duration

    public init(hours: Int = 24) { age = .seconds(hours * 3600) }
    /// Any age (tests); `serve` takes whole hours.
    public init(age: Duration) { self.age = age }

    public func cutoff(now: Date) -> Date {
        now.addingTimeInterval(-(age / .seconds(1)))
    }
}

/// Runs the retention purges at start and then every `checkInterval` until shutdown: finished
/// requests' personal data (`purgeLocations`, when configured) and expired idempotency results.
/// A failed run (database down) is logged and retried at the next interval.
struct LocationPurger: Service {
    let store: any RetentionStore
    let retention: LocationRetention?
    let idempotency: IdempotencyRetention
    let checkInterval: Duration
    let now: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                if let retention {
                    let purged = try await store.purgeLocations(finishedBefore: retention.cutoff(now: now()))
                    if purged > 0 { logger.info("purged locations of finished rides", metadata: ["requests": .stringConvertible(purged)]) }
                }
                // The store stamps results with the real clock, so they age by it too (not by
                // the server clock tests may step).
                let expired = try await store.purgeIdempotencyResults(createdBefore: idempotency.cutoff(now: Date()))
                if expired > 0 { logger.info("purged expired idempotency results", metadata: ["results": .stringConvertible(expired)]) }
            } catch {
                logger.warning("retention purge failed; retrying later", metadata: ["error": .string("\(error)")])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: checkInterval) }
        }
    }
}
