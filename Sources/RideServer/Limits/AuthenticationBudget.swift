#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// One authentication attempt's share of the failure budgets, taken **before** the work (the
/// body's parsing, the database lookup) and given back only when the credential turned out
/// good. Taking first means a burst of concurrent guesses cannot all pass the check while none
/// has been counted yet: at most as many attempts are ever in flight or failed as the budget
/// holds (the review's 300 concurrent wrong codes got 714 checks through a 20-a-minute limit
/// when the check took nothing and the failure was counted after the lookup). Refunding only
/// success means every other ending spends it: a malformed body too, which used to be refunded
/// and so never met a 429 while it made the server parse (issue 36). Only the server's own
/// failure (a 5xx: the database down) gives it back, since the client did nothing wrong.
final class AuthenticationReservation: Sendable {
    private struct State {
        var taken: [(RateLimiter, String)] = []
        var refund = false
        var settled = false
    }

    private let state = Mutex(State())
    private let onRefused: @Sendable (Int) -> APIError
    /// The client's address, for a sign-in (a success makes it known good).
    let address: String?

    init(address: String? = nil, onRefused: @escaping @Sendable (Int) -> APIError) {
        self.address = address
        self.onRefused = onRefused
    }

    /// Takes one from `limiter`'s bucket for `key`; 429 (keeping what was taken) when it is empty.
    func take(_ limiter: RateLimiter, _ key: String) throws {
        if let wait = limiter.take(key) { throw onRefused(wait) }
        state.withLock { $0.taken.append((limiter, key)) }
    }

    /// Takes one from `limiter`'s bucket for `key` if it has one; false (nothing taken) if not.
    func takeIfAvailable(_ limiter: RateLimiter, _ key: String) -> Bool {
        guard limiter.take(key) == nil else { return false }
        state.withLock { $0.taken.append((limiter, key)) }
        return true
    }

    /// The credential was good: what was taken is given back when the attempt settles.
    func succeeded() {
        state.withLock { $0.refund = true }
    }

    /// The credential was wrong (or the request malformed): what was taken stays spent. This is
    /// also what happens when neither is said; it is here so call sites read as they mean.
    func failed() {
        state.withLock { $0.refund = false }
    }

    /// Ends the attempt: refunds everything if it `succeeded()`. Idempotent.
    func settle() {
        let refunds: [(RateLimiter, String)] = state.withLock { state in
            guard !state.settled else { return [] }
            state.settled = true
            return state.refund ? state.taken : []
        }
        for (limiter, key) in refunds { limiter.refund(key) }
    }

    /// Refunds what was taken so far (a refusal by a later budget, or the server's own failure).
    func cancel() {
        succeeded()
        settle()
    }
}

/// The key a client address is counted under: an IPv4 address as it is, an IPv6 address by its
/// /64 (one subscriber's prefix: a host picks any of 2^64 addresses in it), an IPv4-mapped IPv6
/// address as its IPv4 address. Anything unparseable is counted as written.
enum AddressKey {
    static func of(_ address: String) -> String {
        var text = address
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") { text = String(text[text.index(after: text.startIndex)..<end]) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        guard text.contains(":") else { return text }
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, text, &bytes) == 1 else { return address }
        let octets = withUnsafeBytes(of: &bytes) { Array($0) }
        if octets[0..<10].allSatisfy({ $0 == 0 }) && octets[10] == 0xFF && octets[11] == 0xFF {
            return octets[12...].map { String($0) }.joined(separator: ".")
        }
        return RateLimits.hex(octets[0..<8]) + "::/64"
    }

    /// A key of `of` widened to its site: an IPv6 /64 to its /48 (what one customer is routed,
    /// 65 536 /64s for the price of one); an IPv4 address stays as it is.
    static func site(_ key: String) -> String {
        guard key.hasSuffix("::/64"), key.count == 16 + 5 else { return key }
        return String(key.prefix(12)) + "::/48"
    }
}
