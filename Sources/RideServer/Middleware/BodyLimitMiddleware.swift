import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RideStore

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
