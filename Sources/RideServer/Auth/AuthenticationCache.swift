import Foundation
import RideStore
import Synchronization

/// Who a token belonged to, a moment ago. Every authenticated request looked its token up in the
/// database: half the database round trips of a ride GET, each a hop to a reader queue and back
/// (BENCHMARKS.md, "Ride server"). An answer is reused for `lifetime` (1 s at most): the bound
/// this server already keeps for revocation elsewhere (open streams re-check their token within
/// 1 s, SECURITY.md). Unknown tokens are never remembered (a guess costs its lookup, as before).
///
/// Revocation-aware (issue 39): what "at once" means here, per way a revocation arrives.
/// - Through this server (either store): the store announces the commit before the revoking
///   request is answered, and `forgetAll` runs then, so the next request looks up.
/// - Through another server on the same PostgreSQL: its NOTIFY reaches this server's listening
///   connection, PostgreSQL sends it when the revocation commits, and `forgetAll` runs when it
///   arrives. NOTIFY is asynchronous, so between the other server's commit and this server
///   hearing it (the notification's delivery: milliseconds) a cached answer may still be used;
///   a request this server starts after hearing it is refused. While this server is not
///   listening (before its first LISTEN, after its notification connection dropped, until it
///   listens again) it cannot hear revocations, so it does not use the cache at all
///   (`revocationSignals(heard:)`): every request then looks its token up.
/// - Written to the database by other means (the admin CLI on a SQLite file): within `lifetime`,
///   and so does expiry.
///
/// A lookup that was on its way while a revocation was heard is not remembered (its answer may
/// predate the revocation): each `forgetAll` starts a new generation, and only an answer looked
/// up entirely within the current generation is kept.
final class AuthenticationCache: Sendable {
    private struct Entry {
        var account: Account
        var until: Date
    }

    private struct State {
        var entries: [Data: Entry] = [:]
        /// Advanced by every `forgetAll`: answers looked up across one are dropped.
        var generation: UInt64 = 0
        /// Whether revocations made elsewhere can reach this server now.
        var hearsRevocations: Bool
    }

    private let state: Mutex<State>
    private let lifetime: TimeInterval
    private let capacity: Int
    private let now: @Sendable () -> Date

    /// `hearsRevocations`: false where other servers revoke and this one learns of it only by a
    /// notification it is not yet listening for (PostgreSQL); the cache is used once it is.
    init(lifetime: TimeInterval = 1, capacity: Int = 50_000, hearsRevocations: Bool = true, now: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
        state = Mutex(State(hearsRevocations: hearsRevocations))
    }

    /// The token's account from the cache, or from `lookUp` (remembered when found).
    func account(secretHash: Data, lookUp: (Data) async throws -> Account?) async throws -> Account? {
        let time = now()
        let (cached, generation) = state.withLock { state -> (Entry?, UInt64?) in
            guard state.hearsRevocations else { return (nil, nil) }
            return (state.entries[secretHash], state.generation)
        }
        if let cached, cached.until > time { return cached.account }
        guard let account = try await lookUp(secretHash) else { return nil }
        guard lifetime > 0, let generation else { return account }
        let entry = Entry(account: account, until: time.addingTimeInterval(lifetime))
        state.withLock { state in
            guard state.hearsRevocations, state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries = state.entries.filter { $0.value.until > time } }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[secretHash] = entry
        }
        return account
    }

    /// After a revocation (here or heard from another server): nothing answered before is reused,
    /// nor anything being looked up now.
    func forgetAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.generation &+= 1
        }
    }

    /// Whether revocations made on other servers reach this one now (its notification connection
    /// listens). While they do not, nothing is cached or reused; either change forgets everything.
    func revocationSignals(heard: Bool) {
        state.withLock { state in
            state.entries.removeAll()
            state.generation &+= 1
            state.hearsRevocations = heard
        }
    }

    /// How many times everything was forgotten (tests).
    var generation: UInt64 { state.withLock { $0.generation } }
}
