import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// How much a client may do before it gets 429. Counted per server process (see SECURITY.md).
public struct RateLimitConfiguration: Sendable {
    /// Failed authentications, counted per client address and per presented token: guessing
    /// tokens, or hammering with a revoked one, stops here before it reaches the database.
    public var authenticationFailures = RateLimit.perMinute(20)
    /// Touch proofs per token: a device posts one per touch, a few when a touch is retried.
    public var touchProofsPerToken = RateLimit.perMinute(20)
    /// Touch proofs per client address (several devices can share one address behind NAT).
    public var touchProofsPerAddress = RateLimit.perMinute(120)
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
    private let proofsByToken: RateLimiter
    private let proofsByAddress: RateLimiter
    private let addressHeader: HTTPField.Name?
    private let metrics: ServerMetrics

    init(_ configuration: RateLimitConfiguration, now: @escaping @Sendable () -> Date, metrics: ServerMetrics) {
        authFailuresByAddress = RateLimiter(configuration.authenticationFailures, now: now)
        authFailuresByToken = RateLimiter(configuration.authenticationFailures, now: now)
        proofsByToken = RateLimiter(configuration.touchProofsPerToken, now: now)
        proofsByAddress = RateLimiter(configuration.touchProofsPerAddress, now: now)
        addressHeader = configuration.clientAddressHeader.flatMap { HTTPField.Name($0) }
        self.metrics = metrics
    }

    /// The client's address: the peer of the connection, or the configured proxy header's last value.
    func clientAddress(_ request: Request, context: RideContext) -> String {
        if let addressHeader, let forwarded = request.headers[addressHeader],
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            return last
        }
        return context.peerAddress
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

    /// 429 when this address or this token has failed authentication too often lately.
    func checkAuthentication(address: String, token: String?) throws {
        let waits = [authFailuresByAddress.retryAfter(address), token.flatMap(authFailuresByToken.retryAfter)].compactMap { $0 }
        if let wait = waits.max() {
            metrics.recordRateLimited(.authenticationFailures)
            throw APIError.rateLimited(retryAfter: wait, "too many failed authentications from this address or with this token")
        }
    }

    func authenticationFailed(address: String, token: String?) {
        authFailuresByAddress.record(address)
        if let token { authFailuresByToken.record(token) }
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
}

extension APIError {
    static func rateLimited(retryAfter seconds: Int, _ message: String) -> APIError {
        var error = APIError(.tooManyRequests, code: .rateLimited, "\(message); retry in \(seconds) s")
        error.headers[.retryAfter] = String(seconds)
        return error
    }
}
