import Foundation
import HTTPTypes
import Hummingbird
import RideStore
import RideWire

/// Every failure the API reports, rendered as `{"error":{"code":"...","message":"..."}}`.
/// `field` names the offending input; `state` the ride's current state on a conflict.
public struct APIError: Error, Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var code: APIErrorCode
    public var message: String
    public var field: String?
    public var state: RideState?
    /// The request or ride that makes a one-ride-at-a-time conflict.
    public var existingID: String?
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, code: APIErrorCode, _ message: String, field: String? = nil, state: RideState? = nil,
                existingID: String? = nil) {
        self.existingID = existingID
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.state = state
    }

    static func invalidJSON(_ message: String) -> APIError {
        APIError(.badRequest, code: .invalidJSON, message)
    }

    static func invalidField(_ field: String, _ problem: String) -> APIError {
        APIError(.badRequest, code: .invalidField, "\(field): \(problem)", field: field)
    }

    static func invalidParameter(_ name: String, _ problem: String) -> APIError {
        APIError(.badRequest, code: .invalidParameter, "\(name): \(problem)", field: name)
    }

    static func unauthenticated(_ message: String) -> APIError {
        var error = APIError(.unauthorized, code: .unauthenticated, message)
        error.headers[.wwwAuthenticate] = #"Bearer realm="ridebeacon""#
        return error
    }

    static func forbidden(_ message: String) -> APIError {
        APIError(.forbidden, code: .forbidden, message)
    }

    static func notFound(_ what: String) -> APIError {
        APIError(.notFound, code: .notFound, "\(what) not found")
    }

    static func conflict(_ state: RideState, _ message: String) -> APIError {
        APIError(.conflict, code: .illegalTransition, message, state: state)
    }

    static func unavailable(_ message: String) -> APIError {
        var error = APIError(.serviceUnavailable, code: .unavailable, message)
        error.headers[.retryAfter] = "1"
        return error
    }

    static func methodNotAllowed(_ method: HTTPRequest.Method, allowed: [HTTPRequest.Method]) -> APIError {
        let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        var error = APIError(.methodNotAllowed, code: .methodNotAllowed, "\(method.rawValue) is not allowed here; use \(allow)")
        error.headers[.allow] = allow
        return error
    }

    static func tooManyStreams(_ limit: Int) -> APIError {
        var error = APIError(.tooManyRequests, code: .tooManyStreams,
                             "this token already has \(limit) open event streams; close one first")
        error.headers[.retryAfter] = "5"
        return error
    }

    static let bodyTooLarge = APIError(.contentTooLarge, code: .bodyTooLarge,
                                       "request body exceeds \(APILimits.maxBodyBytes / 1024) KiB")
}

extension APIError {
    /// What a store refusal means to a client.
    init(_ error: StoreError) {
        switch error {
        case .notFound(let what):
            self = .notFound(what)
        case .illegalTransition(let from, let to):
            self = .conflict(from, "the ride is \(from.rawValue); it cannot become \(to.rawValue)")
        case .busy(.driver, let existing):
            self = APIError(.conflict, code: .driverHasActiveRide,
                            "you already have an active ride; finish or cancel it before accepting another", existingID: existing)
        case .busy(_, let existing):
            self = APIError(.conflict, code: .passengerHasActiveRide,
                            "you already have an open request or an active ride; cancel it before asking for another", existingID: existing)
        case .signInRefused(.unknown):
            self = APIError(.unauthorized, code: .invalidSignInCode, "no such sign-in code; check the eight digits or ask for a new code", field: "code")
        case .signInRefused(.expired):
            self = APIError(.unauthorized, code: .signInCodeExpired, "this sign-in code has expired (codes last 24 hours); ask for a new one", field: "code")
        case .signInRefused(.used):
            self = APIError(.unauthorized, code: .signInCodeUsed, "this sign-in code was already used; ask for a new one", field: "code")
        case .limitReached(let message):
            self = .rateLimited(retryAfter: 3600, message)
        case .alreadyTaken:
            self = APIError(.conflict, code: .alreadyTaken, "another driver already accepted this ride request", state: .accepted)
        case .idempotencyKeyReused(let key):
            self = APIError(.unprocessableContent, code: .idempotencyKeyReused,
                            "Idempotency-Key '\(key)' was already used for a different request", field: "Idempotency-Key")
        case .replayed(let message):
            self = APIError(.conflict, code: .replayedProof, message)
        case .invalid(let message):
            self = APIError(.badRequest, code: .invalidRequest, message)
        case .unavailable(let message):
            self = .unavailable("the database is unavailable, retry shortly (\(message))")
        }
    }

    func response(encoder: JSONEncoder) -> Response {
        let envelope = APIErrorBody(error: .init(code: code, message: message, field: field, state: state, existingID: existingID))
        let data = (try? encoder.encode(envelope)) ?? Data(#"{"error":{"code":"internal","message":"unencodable error"}}"#.utf8)
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
