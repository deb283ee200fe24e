import Foundation
@testable import RideServer
import RideStore
import Synchronization
import Testing
import RideBeaconTesting

@Suite("Authentication cache")
struct AuthenticationCacheTests {
    final class Lookups: Sendable {
        let count = Mutex(0)
        let account: Account? = Account(id: "a1", role: .passenger, displayName: "Ana", vehicle: nil, createdAt: Date(timeIntervalSince1970: 0))
        func lookUp(_ hash: Data) async throws -> Account? {
            count.withLock { $0 += 1 }
            return hash == Data([1]) ? account : nil
        }
        var made: Int { count.withLock { $0 } }
    }

    @Test func anAnswerIsReusedForItsLifetimeOnly() async throws {
        let clock = SteppedClock()
        let cache = AuthenticationCache(lifetime: 1, now: clock.reading)
        let lookups = Lookups()
        #expect(try await cache.account(secretHash: Data([1]), lookUp: lookups.lookUp)?.id == "a1")
        clock.advance(0.9)
        #expect(try await cache.account(secretHash: Data([1]), lookUp: lookups.lookUp)?.id == "a1")
        #expect(lookups.made == 1, "reused within the second")
        clock.advance(0.2)
        _ = try await cache.account(secretHash: Data([1]), lookUp: lookups.lookUp)
        #expect(lookups.made == 2, "looked up again once the second has passed")
    }

    @Test func unknownTokensAreNeverRemembered() async throws {
        let cache = AuthenticationCache(lifetime: 1, now: SteppedClock().reading)
        let lookups = Lookups()
        for _ in 0..<3 { #expect(try await cache.account(secretHash: Data([2]), lookUp: lookups.lookUp) == nil) }
        #expect(lookups.made == 3)
    }

    @Test func forgettingAndAZeroLifetimeLookUpEveryTime() async throws {
        let clock = SteppedClock()
        let cache = AuthenticationCache(lifetime: 1, now: clock.reading)
        let lookups = Lookups()
        _ = try await cache.account(secretHash: Data([1]), lookUp: lookups.lookUp)
        cache.forgetAll()
        _ = try await cache.account(secretHash: Data([1]), lookUp: lookups.lookUp)
        #expect(lookups.made == 2)
        let uncached = AuthenticationCache(lifetime: 0, now: clock.reading)
        _ = try await uncached.account(secretHash: Data([1]), lookUp: lookups.lookUp)
        _ = try await uncached.account(secretHash: Data([1]), lookUp: lookups.lookUp)
        #expect(lookups.made == 4)
    }

    @Test func aFullCacheDropsWhatExpiredThenEverything() async throws {
        let clock = SteppedClock()
        let cache = AuthenticationCache(lifetime: 1, capacity: 2, now: clock.reading)
        let lookups = Lookups()
        _ = try await cache.account(secretHash: Data([1]), lookUp: lookups.lookUp)
        clock.advance(2)
        // The expired entry makes room; the table never grows past its capacity.
        for _ in 0..<3 { _ = try await cache.account(secretHash: Data([1]), lookUp: lookups.lookUp) }
        #expect(lookups.made == 2)
    }
}
