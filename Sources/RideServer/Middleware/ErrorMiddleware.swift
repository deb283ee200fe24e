import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RideStore

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
        case let error as BodyError:
            return APIError(error)
        case let error as HTTPError:
            // Hummingbird's own: unmatched routes, bodies over maxUploadSize.
            switch error.status {
            case .notFound: return APIError(.notFound, code: .notFound, "no such endpoint")
            case .contentTooLarge: return .bodyTooLarge
            default: return APIError(error.status, code: .httpError, error.body ?? error.status.reasonPhrase)
            }
        case is NIOTooManyBytesError:
            return .bodyTooLarge
        default:
            context.logger.error("unhandled error", metadata: ["error": .string(String(reflecting: error))])
            return APIError(.internalServerError, code: .internalError, "internal error; quote request id \(context.requestID)")
        }
    }
}
