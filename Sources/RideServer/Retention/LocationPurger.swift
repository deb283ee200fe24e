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

/// Runs `purgeLocations` at start and then every `checkInterval` until shutdown. A failed run
/// (database down) is logged and retried at the next interval; nothing else depends on it.
struct LocationPurger: Service {
    let store: any Store
    let retention: LocationRetention
    let now: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let purged = try await store.purgeLocations(finishedBefore: retention.cutoff(now: now()))
                if purged > 0 { logger.info("purged locations of finished rides", metadata: ["requests": .stringConvertible(purged)]) }
            } catch {
                logger.warning("location purge failed; retrying later", metadata: ["error": .string("\(error)")])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: retention.checkInterval) }
        }
    }
}
