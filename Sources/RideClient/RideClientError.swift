import Foundation

/// Why a call to the ride service failed. `isRetryable` separates "try again later" (the
/// service is unreachable, slow or failing) from "this request will never work" (4xx).
public enum RideClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server URL or token cannot be used; nothing was sent.
    case invalidConfiguration(String)
    /// No connection could be made (refused, not taken within the connect timeout, no route,
    /// name not resolved): nothing was sent, so even a write may be tried again.
    case notAnswering(String)
    /// The connection broke (reset, closed mid-response): the request may have arrived.
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
        case .notAnswering, .unreachable, .timeout, .serverFailure: true
        case .invalidConfiguration, .rejected, .invalidResponse, .cancelled: false
        }
    }

    /// True when the request certainly never reached the server.
    public var nothingSent: Bool {
        switch self {
        case .notAnswering, .invalidConfiguration: true
        default: false
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
        case .notAnswering(let reason): "the ride service is not answering (nothing was sent): \(reason)"
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

extension APIProblem {
    /// Parses an error answer; a body that is not the documented shape still yields a problem
    /// naming the status, so the caller always learns something.
    static func parse(status: Int, body: Data, retryAfter: String?) -> APIProblem {
        let seconds = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard let envelope = try? JSONDecoder().decode(APIErrorBody.self, from: body) else {
            let snippet = String(decoding: body.prefix(200), as: UTF8.self)
            return APIProblem(status: status, code: APIErrorCode(rawValue: "http_\(status)"),
                              message: snippet.isEmpty ? "HTTP status \(status)" : "HTTP status \(status): \(snippet)",
                              retryAfter: seconds)
        }
        let e = envelope.error
        return APIProblem(status: status, code: e.code, message: e.message, field: e.field,
                          state: e.state.flatMap(RideState.init(rawValue:)), retryAfter: seconds)
    }
}
