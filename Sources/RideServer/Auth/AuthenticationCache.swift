import Foundation
import RideStore
import Synchronization

/// Who a token belonged to, a moment ago. Every authenticated request looked its token up in the
/// database: half the database round trips of a ride GET, each a hop to a reader queue and back
/// (BENCHMARKS.md, "Ride server"). An answer is reused for `lifetime` (1 s at most): the bound
/// this server already keeps for revocation elsewhere (open streams re-check their token within
/// 1 s, SECURITY.md). A revocation made through this server, or announced by another server on
/// PostgreSQL's notification channel, forgets every answer at once; one written to the database
/// by other means (the admin CLI on a SQLite file) takes effect within `lifetime`, and so does
/// expiry. Unknown tokens are never remembered (a guess costs its lookup, as before).
final class AuthenticationCache: Sendable {
    private struct Entry {
        var account: Account
        var until: Date
    }

    private let entries = Mutex<[Data: Entry]>([:])
    private let lifetime: TimeInterval
    private let capacity: Int
    private let now: @Sendable () -> Date

    init(lifetime: TimeInterval = 1, capacity: Int = 50_000, now: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
    }

    /// The token's account from the cache, or from `lookUp` (remembered when found).
    func account(secretHash: Data, lookUp: (Data) async throws -> Account?) async throws -> Account? {
        let time = now()
        if let entry = entries.withLock({ $0[secretHash] }), entry.until > time { return entry.account }
        guard let account = try await lookUp(secretHash) else { return nil }
        guard lifetime > 0 else { return account }
        let entry = Entry(account: account, until: time.addingTimeInterval(lifetime))
        entries.withLock { entries in
            if entries.count >= capacity { entries = entries.filter { $0.value.until > time } }
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[secretHash] = entry
        }
        return account
    }

    /// After a revocation through this server: nothing it answered before is reused.
    func forgetAll() {
        entries.withLock { $0.removeAll() }
    }
}
