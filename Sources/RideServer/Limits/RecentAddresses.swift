import Foundation
import Synchronization

/// Client addresses (`AddressKey`) that signed in with a code lately, each remembered for `lifetime` after
/// its last sign-in: the allow-list that lets riders through while a botnet spends the
/// server-wide sign-in budget (`RateLimits.reserveSignIn`). In this process's memory, bounded:
/// past `capacity` the oldest half is forgotten (those addresses simply meet the server-wide
/// budget again, as before they signed in).
final class RecentAddresses: Sendable {
    private let lifetime: TimeInterval
    private let capacity: Int
    private let now: @Sendable () -> Date
    private let seen = Mutex<[String: Date]>([:])

    init(lifetime: TimeInterval, capacity: Int = 100_000, now: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
    }

    func insert(_ address: String) {
        let time = now()
        seen.withLock { seen in
            if seen.count >= capacity, seen[address] == nil {
                // Amortised: one O(n) pass per capacity/2 inserts.
                let kept = seen.sorted { $0.value > $1.value }.prefix(capacity / 2)
                seen = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
            }
            seen[address] = time
        }
    }

    func contains(_ address: String) -> Bool {
        let time = now()
        return seen.withLock { seen in
            guard let last = seen[address] else { return false }
            guard time.timeIntervalSince(last) < lifetime else {
                seen[address] = nil
                return false
            }
            return true
        }
    }
}
