import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RideStore
import Synchronization

/// How much a client may do before it gets 429. Counted per server process (see SECURITY.md).
public struct RateLimitConfiguration: Sendable {
    /// Failed authentications, counted per client address and per presented token: guessing
    /// tokens, or hammering with a revoked one, stops here before it reaches the database.
    public var authenticationFailures = RateLimit.perMinute(20)
    /// Failed sign-ins with a code (API and both pages) across the whole server: eight digits
    /// are guessable in a way 256-bit tokens are not, and a botnet has many addresses. With 20
    /// live codes, 60 a minute is about 58 days per expected hit. It does not fail closed (an
    /// attacker spending it would lock every rider out, issue 36): once it is spent, an address
    /// that signed in lately is not counted against it at all, and any other address still gets
    /// `signInsPerAddressWhenServerWideIsSpent`, so a valid code typed once always gets through.
    public var signInFailuresServerWide = RateLimit.perMinute(60)
    /// While the server-wide budget is spent: sign-in attempts per address not known good (an
    /// IPv6 address by its /48, `AddressKey.site`: one site's 65 536 /64s are one address here).
    /// A rider typing her code needs one or two; a botnet of N addresses gets N × this (1 000
    /// addresses: 100 a minute beside the server-wide 60, about 22 days per expected hit).
    public var signInsPerAddressWhenServerWideIsSpent = RateLimit(count: 3, per: 1800)
    /// How long an address that signed in with a good code stays known good: its sign-ins take
    /// nothing from the server-wide budget. Only codes count, which only admins issue: a good
    /// token would let one account vouch for every address of a botnet.
    public var knownGoodAddressLifetime: TimeInterval = 24 * 3600
    /// Sign-in attempts that reach one account's code (good, used or expired), per account.
    public var signInsPerAccount = RateLimit.perMinute(5)
    /// Touch proofs per token: a device posts one per touch, a few when a touch is retried.
    public var touchProofsPerToken = RateLimit.perMinute(20)
    /// Touch proofs per client address (several devices can share one address behind NAT).
    public var touchProofsPerAddress = RateLimit.perMinute(120)
    /// Messages to the driver per passenger account: a few presets in a row are normal; a
    /// stream of them would only keep his phone talking while he drives.
    public var messagesPerAccount = RateLimit.perMinute(6)
    /// Position writes per party of a ride (issue 35): a phone reports about once a second;
    /// a few at once are a burst after a lost connection, more only load the database.
    public var positionsPerParty = RateLimit(count: 5, per: 5)
    /// Behind a reverse proxy every connection comes from the proxy; name the header it sets
    /// (e.g. `X-Forwarded-For`) and its last value, the address the proxy saw, is used instead.
    /// Only set this when clients cannot reach the server except through that proxy.
    public var clientAddressHeader: String?

    public init() {}
}

/// The server's rate limiters and how a request is keyed to them.
final class RateLimits: Sendable {
    private let authFailuresByAddress: RateLimiter
    private let authFailuresByToken: RateLimiter
    private let signInFailuresServerWide: RateLimiter
    private let signInsByAccount: RateLimiter
    private let signInsByAddressWhileSpent: RateLimiter
    /// Addresses that signed in lately (`RecentAddresses`): the server-wide guard skips them.
    private let goodAddresses: RecentAddresses
    /// Token keys that authenticated lately: a client holding a good token is not guessing, so
    /// its requests take nothing from the budgets (a failure is still counted, after the fact).
    private let knownGood = Mutex<Set<String>>([])
    private let pendingLookups = Mutex<[String: [CheckedContinuation<LookupOutcome?, Never>]]>([:])
    private static let knownGoodCapacity = 100_000
    private let proofsByToken: RateLimiter
    private let proofsByAddress: RateLimiter
    private let messagesByAccount: RateLimiter
    private let positionsByParty: RateLimiter
    private let addressHeader: HTTPField.Name?
    private let metrics: ServerMetrics

    init(_ configuration: RateLimitConfiguration, now: @escaping @Sendable () -> Date, metrics: ServerMetrics) {
        authFailuresByAddress = RateLimiter(configuration.authenticationFailures, now: now)
        authFailuresByToken = RateLimiter(configuration.authenticationFailures, now: now)
        signInFailuresServerWide = RateLimiter(configuration.signInFailuresServerWide, now: now)
        signInsByAccount = RateLimiter(configuration.signInsPerAccount, now: now)
        signInsByAddressWhileSpent = RateLimiter(configuration.signInsPerAddressWhenServerWideIsSpent, now: now)
        goodAddresses = RecentAddresses(lifetime: configuration.knownGoodAddressLifetime, now: now)
        proofsByToken = RateLimiter(configuration.touchProofsPerToken, now: now)
        proofsByAddress = RateLimiter(configuration.touchProofsPerAddress, now: now)
        messagesByAccount = RateLimiter(configuration.messagesPerAccount, now: now)
        positionsByParty = RateLimiter(configuration.positionsPerParty, now: now)
        addressHeader = configuration.clientAddressHeader.flatMap { HTTPField.Name($0) }
        self.metrics = metrics
    }

    /// The key of the client's address (`AddressKey`: IPv6 by /64): the peer of the connection,
    /// or the configured proxy header's last value.
    func clientAddress(_ request: Request, context: some RideRequestContext) -> String {
        if let addressHeader, let forwarded = request.headers[addressHeader],
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            return AddressKey.of(last)
        }
        return AddressKey.of(context.peerAddress)
    }

    /// A short, non-reversible key for whatever was presented as a token (valid or not), so
    /// secrets never sit in the limiter's memory as text.
    static func tokenKey(_ presented: String) -> String {
        Self.hex(SHA256.hash(data: Data(presented.utf8)).prefix(16))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Lower-case hex; `String(format:)` per byte cost 5 % of every authenticated request.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var text = [UInt8]()
        for byte in bytes { text.append(hexDigits[Int(byte >> 4)]); text.append(hexDigits[Int(byte & 0xF)]) }
        return String(decoding: text, as: UTF8.self)
    }

    private func refused(_ wait: Int, _ message: String) -> APIError {
        metrics.recordRateLimited(.authenticationFailures)
        return APIError.rateLimited(retryAfter: wait, message)
    }

    private func makeReservation(_ message: String, address: String? = nil) -> AuthenticationReservation {
        AuthenticationReservation(address: address) { [self] wait in refused(wait, message) }
    }

    /// 429 when this address has failed too often lately (a request that presents nothing:
    /// not a guess, so nothing is taken).
    func checkAddress(_ address: String) throws {
        if let wait = authFailuresByAddress.retryAfter(address) {
            throw refused(wait, "too many failed authentications from this address")
        }
    }

    /// Whether `token` authenticated lately: its requests take nothing (report a failure with
    /// `failedAfter`).
    func isKnownGood(_ token: String) -> Bool {
        knownGood.withLock { $0.contains(token) }
    }

    /// How a lookup of one token ended, for the requests that waited on it.
    enum LookupOutcome: Sendable {
        case good, bad, undecided
    }

    /// Concurrent requests with the same unproven token wait for the first one's lookup instead
    /// of each taking from the address's budget (a client opening many streams at once with one
    /// new token is not many guesses). Nil: the caller is the first and must `finishLookup`.
    func joinLookup(_ token: String) async -> LookupOutcome? {
        await withCheckedContinuation { (continuation: CheckedContinuation<LookupOutcome?, Never>) in
            let first = pendingLookups.withLock { pending -> Bool in
                if pending[token] != nil {
                    pending[token]!.append(continuation)
                    return false
                }
                pending[token] = []
                return true
            }
            if first { continuation.resume(returning: nil) }
        }
    }

    func finishLookup(_ token: String, _ outcome: LookupOutcome) {
        let waiting = pendingLookups.withLock { $0.removeValue(forKey: token) ?? [] }
        for continuation in waiting { continuation.resume(returning: outcome) }
    }

    /// An attempt with a presented token: one taken from the address's and the token's budgets
    /// before the lookup (429 when either is empty), given back if the token is good.
    func reserveAuthentication(address: String, token: String) throws -> AuthenticationReservation {
        let reservation = makeReservation("too many failed authentications from this address or with this token")
        do {
            try reservation.take(authFailuresByAddress, address)
            try reservation.take(authFailuresByToken, token)
        } catch {
            reservation.cancel()
            throw error
        }
        return reservation
    }

    /// A sign-in code attempt (API or page), before the body is even read: one taken from the
    /// address's budget, then from the server-wide one unless the address signed in lately. When
    /// the server-wide budget is spent the attempt is not refused for that: it takes from the
    /// address's small allowance for such times instead (`signInsPerAddressWhenServerWideIsSpent`),
    /// so the per-address and per-account budgets carry the load and a rider with a valid code
    /// still signs in while a botnet spends the server-wide budget. `reserveAccount` adds the
    /// code's account once known.
    func reserveSignIn(address: String) throws -> AuthenticationReservation {
        let reservation = makeReservation("too many failed sign-ins from this address", address: address)
        do {
            try reservation.take(authFailuresByAddress, address)
            if !goodAddresses.contains(address), !reservation.takeIfAvailable(signInFailuresServerWide, "server") {
                try reservation.take(signInsByAddressWhileSpent, AddressKey.site(address))
            }
        } catch {
            reservation.cancel()
            throw error
        }
        return reservation
    }

    /// A page's session cookie (`rb_dispatch`, `rb_passenger`), looked up under the same budgets
    /// as a bearer token in `AuthMiddleware` (issue 36: the pages looked cookies up with none):
    /// a token that worked lately is looked up at once (a failure counted after it); any other
    /// takes from the address's and the token's budgets first, refunded when it is good.
    func lookUpSession<T: Sendable>(_ token: APITokenSecret, address: String, _ lookUp: () async throws -> T?) async throws -> T? {
        let key = Self.tokenKey(token.text)
        if isKnownGood(key) {
            let found = try await lookUp()
            if found == nil { failedAfter(address: address, token: key) }
            return found
        }
        let reservation = try reserveAuthentication(address: address, token: key)
        return try await attempt(reservation) {
            guard let found = try await lookUp() else {
                reservation.failed()
                return nil
            }
            reservation.succeeded()
            authenticated(token: key)
            return found
        }
    }

    /// The sign-in's code belongs to `accountID`: one from that account's budget too.
    func reserveAccount(_ accountID: String, in reservation: AuthenticationReservation) throws {
        try reservation.take(signInsByAccount, accountID)
    }

    /// A code signed in under `reservation`: its address's sign-ins skip the server-wide guard
    /// for a while.
    func signedIn(from reservation: AuthenticationReservation) {
        if let address = reservation.address { goodAddresses.insert(address) }
    }

    /// The token worked: later requests with it take nothing.
    func authenticated(token: String) {
        knownGood.withLock { set in
            if set.count >= Self.knownGoodCapacity { set.removeAll(keepingCapacity: true) }
            set.insert(token)
        }
    }

    /// A token that had worked failed (revoked, expired): counted after the fact, and it takes
    /// from the budgets before its lookups from now on.
    func failedAfter(address: String, token: String) {
        knownGood.withLock { _ = $0.remove(token) }
        authFailuresByAddress.record(address)
        authFailuresByToken.record(token)
    }

    /// Runs one authentication attempt under `reservation`: refunded only if `body` marked it
    /// `succeeded()`, or if it failed for the server's own reason (a 5xx), never for a wrong
    /// credential or a malformed request.
    func attempt<T>(_ reservation: AuthenticationReservation, _ body: () async throws -> T) async throws -> T {
        defer { reservation.settle() }
        do {
            return try await body()
        } catch {
            if Self.isServerFault(error) { reservation.succeeded() }
            throw error
        }
    }

    /// Whether `error` becomes a 5xx (the client is not to blame for it).
    static func isServerFault(_ error: any Error) -> Bool {
        switch error {
        case let error as APIError: error.status.code >= 500
        case let error as StoreError: APIError(error).status.code >= 500
        case is BodyError, is HTTPError, is NIOTooManyBytesError, is CancellationError: false
        default: true
        }
    }

    /// Spends one touch proof for the token and the address; 429 when either is used up.
    func admitTouchProof(token: String, address: String) throws {
        if let wait = proofsByToken.retryAfter(token) ?? proofsByAddress.retryAfter(address) {
            metrics.recordRateLimited(.touchProofs)
            throw APIError.rateLimited(retryAfter: wait, "too many touch proofs from this token or address")
        }
        _ = proofsByToken.take(token)
        _ = proofsByAddress.take(address)
    }

    /// Spends one message to the driver for the account; 429 when it is used up.
    func admitMessage(account: String) throws {
        if let wait = messagesByAccount.retryAfter(account) {
            metrics.recordRateLimited(.messages)
            throw APIError.rateLimited(retryAfter: wait, "too many messages to the driver; wait before sending another")
        }
        _ = messagesByAccount.take(account)
    }

    /// Spends one position write for the ride's party (`rideID` and the account); 429 when it is used up.
    func admitPosition(rideID: String, account: String) throws {
        let key = rideID + "/" + account
        if let wait = positionsByParty.take(key) {
            metrics.recordRateLimited(.positions)
            throw APIError.rateLimited(retryAfter: wait, "too many positions from this party of the ride; send at most one a second")
        }
    }

    /// Gives back the message `admitMessage` took: the request was a retry the store answered
    /// with its first message (an Idempotency-Key replay), which sent nothing.
    func refundMessage(account: String) {
        messagesByAccount.refund(account)
    }
}

extension APIError {
    static func rateLimited(retryAfter seconds: Int, _ message: String) -> APIError {
        var error = APIError(.tooManyRequests, code: .rateLimited, "\(message); retry in \(seconds) s")
        error.headers[.retryAfter] = String(seconds)
        return error
    }
}
