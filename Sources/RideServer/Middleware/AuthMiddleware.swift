import Foundation
import HTTPTypes
import Hummingbird
import RideStore

/// Resolves `Authorization: Bearer rb_...` to an account, or answers 401. Every `/v1` route
/// sits behind it; roles are checked by the routes themselves.
struct AuthMiddleware: RouterMiddleware {
    let store: any Store

    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthenticated("send Authorization: Bearer <token>")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthenticated("the Authorization header must be Bearer <token>")
        }
        guard let secret = APITokenSecret(presented: parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw APIError.unauthenticated("malformed token")
        }
        guard let account = try await store.authenticate(secretHash: secret.hash) else {
            throw APIError.unauthenticated("unknown or revoked token")
        }
        var context = context
        context.account = account
        context.logger[metadataKey: "account_id"] = .string(account.id)
        return try await next(request, context)
    }
}
