#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// One authentication attempt's share of the failure budgets, taken **before** the work (the
/// database lookup) and given back when the credential turned out good. Taking first means a
/// burst of concurrent guesses cannot all pass the check while none has been counted yet: at
/// most as many attempts are ever in flight or failed as the budget holds (the review's 300
/// concurrent wrong codes got 714 checks through a 20-a-minute limit when the check took nothing
/// and the failure was counted after the lookup).
final class AuthenticationReservation: Sendable {
    private struct State {
        var taken: [(RateLimiter, String)] = []
        var failed = false
        var settled = false
    }

    private let state = Mutex(State())
    private let onRefused: @Sendable (Int) -> APIError

    init(onRefused: @escaping @Sendable (Int) -> APIError) {
        self.onRefused = onRefused
    }

    /// Takes one from `limiter`'s bucket for `key`; 429 (keeping what was taken) when it is empty.
    func take(_ limiter: RateLimiter, _ key: String) throws {
        if let wait = limiter.take(key) { throw onRefused(wait) }
        state.withLock { $0.taken.append((limiter, key)) }
    }

    /// The credential was wrong: what was taken stays spent.
    func failed() {
        state.withLock { $0.failed = true }
    }

    /// Ends the attempt: refunds everything unless it `failed()`. Idempotent.
    func settle() {
        let refunds: [(RateLimiter, String)] = state.withLock { state in
            guard !state.settled else { return [] }
            state.settled = true
            return state.failed ? [] : state.taken
        }
        for (limiter, key) in refunds { limiter.refund(key) }
    }

    /// Refunds what was taken so far (a refusal before any lookup).
    func cancel() {
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
}
