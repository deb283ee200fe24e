import Foundation

/// Why a call to the ride service failed. `isRetryable` separates "try again later" (the
/// service is unreachable, slow or failing) from "this request will never work" (4xx).
public enum RideClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server URL or token cannot be used; nothing was sent.
    case invalidConfiguration(String)
    /// No connection: refused, reset, name not resolved, closed mid-response.
    case unreachable(String)
    /// Connected, but no answer in time.
    case timeout(String)
    /// 5xx: the service is there but failing (503 `unavailable` while its database is down).
    case serverFailure(APIProblem)
    /// 4xx: the service refused this request; `code` and `message` say why.
    case rejected(APIProblem)
    /// The answer was not what openapi.yaml promises.
    case invalidResponse(String)
    /// The calling task was cancelled.
    case cancelled

    /// Worth retrying the same request (with the same Idempotency-Key) after a pause.
    public var isRetryable: Bool {
        switch self {
        case .unreachable, .timeout, .serverFailure: true
        case .invalidConfiguration, .rejected, .invalidResponse, .cancelled: false
        }
    }

    /// The server's error body, for 4xx and 5xx answers.
    public var problem: APIProblem? {
        switch self {
        case .serverFailure(let problem), .rejected(let problem): problem
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .invalidConfiguration(let message): message
        case .unreachable(let reason): "cannot reach the ride service: \(reason)"
        case .timeout(let reason): "the ride service did not answer in time: \(reason)"
        case .serverFailure(let problem): "the ride service failed: \(problem)"
        case .rejected(let problem): problem.description
        case .invalidResponse(let reason): "unexpected answer from the ride service: \(reason)"
        case .cancelled: "cancelled"
        }
    }
}

/// The body of an error answer, `{"error":{"code","message","field"?,"state"?}}`, with its status.
public struct APIProblem: Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: APIErrorCode
    public var message: String
    /// The input at fault (body field, query parameter or header).
    public var field: String?
    /// On conflicts, the state the ride or request is really in.
    public var state: RideState?
    /// Seconds, from `Retry-After` (503, 429).
    public var retryAfter: Int?

    public init(status: Int, code: APIErrorCode, message: String, field: String? = nil,
                state: RideState? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.state = state
        self.retryAfter = retryAfter
    }

    public var description: String { "\(message) (\(status) \(code.rawValue))" }
}

/// The server's error codes (openapi.yaml `Error.code`); unknown codes are kept as they came.
public struct APIErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let invalidJSON = Self(rawValue: "invalid_json")
    public static let invalidField = Self(rawValue: "invalid_field")
    public static let invalidParameter = Self(rawValue: "invalid_parameter")
    public static let unauthenticated = Self(rawValue: "unauthenticated")
    public static let forbidden = Self(rawValue: "forbidden")
    public static let notFound = Self(rawValue: "not_found")
    public static let illegalTransition = Self(rawValue: "illegal_transition")
    public static let alreadyTaken = Self(rawValue: "already_taken")
    public static let idempotencyKeyReused = Self(rawValue: "idempotency_key_reused")
    public static let notImplemented = Self(rawValue: "not_implemented")
    public static let notYourRide = Self(rawValue: "not_your_ride")
    public static let wrongState = Self(rawValue: "wrong_state")
    public static let staleProof = Self(rawValue: "stale_proof")
    public static let staleSlot = Self(rawValue: "stale_slot")
    public static let wrongIdentity = Self(rawValue: "wrong_identity")
    public static let replayedProof = Self(rawValue: "replayed_proof")
    public static let rateLimited = Self(rawValue: "rate_limited")
    /// Event streams: this token already holds the most open streams one token may.
    public static let tooManyStreams = Self(rawValue: "too_many_streams")
    /// The last block of an event stream whose token was revoked or expired.
    public static let tokenRevoked = Self(rawValue: "token_revoked")
    public static let tokenExpired = Self(rawValue: "token_expired")
    public static let unavailable = Self(rawValue: "unavailable")
    public static let internalError = Self(rawValue: "internal")
}

extension APIProblem {
    /// Parses an error answer; a body that is not the documented shape still yields a problem
    /// naming the status, so the caller always learns something.
    static func parse(status: Int, body: Data, retryAfter: String?) -> APIProblem {
        struct Envelope: Decodable {
            struct Inner: Decodable {
                var code: String
                var message: String
                var field: String?
                var state: String?
            }
            var error: Inner
        }
        let seconds = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: body) else {
            let snippet = String(decoding: body.prefix(200), as: UTF8.self)
            return APIProblem(status: status, code: APIErrorCode(rawValue: "http_\(status)"),
                              message: snippet.isEmpty ? "HTTP status \(status)" : "HTTP status \(status): \(snippet)",
                              retryAfter: seconds)
        }
        let e = envelope.error
        return APIProblem(status: status, code: APIErrorCode(rawValue: e.code), message: e.message, field: e.field,
                          state: e.state.flatMap(RideState.init(rawValue:)), retryAfter: seconds)
    }
}
