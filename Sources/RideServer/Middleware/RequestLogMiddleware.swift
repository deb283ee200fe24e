import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RideStore

/// Outermost: gives the request its id (a caller's own `X-Request-ID` when it is safe to log,
/// so one id follows a request through a proxy), returns it, and writes one access-log line.
struct RequestLogMiddleware: RouterMiddleware {
    static let header = HTTPField.Name("X-Request-ID")!

    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        var context = context
        if let presented = request.headers[Self.header], Self.isSafe(presented) {
            context.requestID = presented
        }
        context.logger[metadataKey: "hb.request.id"] = .string(context.requestID)
        let started = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[Self.header] = context.requestID
        let elapsed = ContinuousClock.now - started
        context.logger.info("request", metadata: [
            "http.method": .string(request.method.rawValue),
            "http.path": .string(request.uri.path),
            "http.route": .string(context.matchedRoute),
            "http.status": .stringConvertible(response.status.code),
            "duration_ms": .string(String(format: "%.2f", elapsed / .milliseconds(1))),
        ])
        return response
    }

    static func isSafe(_ id: String) -> Bool {
        (1...128).contains(id.count) && id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.:".unicodeScalars.contains($0)) }
    }
}

/// Turns every error into the API's JSON error body. Inside the logging and metrics
/// middleware, so they see the final status.
struct ErrorMiddleware: RouterMiddleware {
    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = Self.apiError(for: error, context: context)
            return apiError.response(encoder: context.responseEncoder)
        }
    }

    static func apiError(for error: any Error, context: RideContext) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as StoreError:
            return APIError(error)
        case let error as HTTPError:
            // Hummingbird's own: unmatched routes, bodies over maxUploadSize.
            switch error.status {
            case .notFound: return APIError(.notFound, code: "not_found", "no such endpoint")
            case .contentTooLarge: return .bodyTooLarge
            default: return APIError(error.status, code: "http_error", error.body ?? error.status.reasonPhrase)
            }
        case is NIOTooManyBytesError:
            return .bodyTooLarge
        default:
            context.logger.error("unhandled error", metadata: ["error": .string(String(reflecting: error))])
            return APIError(.internalServerError, code: "internal", "internal error; quote request id \(context.requestID)")
        }
    }
}

/// Answers 413 before a handler runs, from `Content-Length` when present and otherwise by
/// collecting at most the limit of a streamed body.
struct BodyLimitMiddleware: RouterMiddleware {
    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > APILimits.maxBodyBytes {
            throw APIError.bodyTooLarge
        }
        guard request.method == .post || request.method == .put || request.method == .patch else {
            return try await next(request, context)
        }
        var request = request
        do {
            _ = try await request.collectBody(upTo: APILimits.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge
        }
        return try await next(request, context)
    }
}

extension RideContext {
    /// The route pattern that answered (`/v1/rides/{id}`), or "unmatched"; never the raw path,
    /// so ids stay out of metric labels.
    var matchedRoute: String {
        guard let path = endpointPath, path != "NotFound" else { return "unmatched" }
        return path
    }
}
