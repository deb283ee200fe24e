import Foundation
import HTTPTypes
import Hummingbird
import RideStore

/// Resolves `Authorization: Bearer rb_...` to an account, or answers 401. Every `/v1` route
/// sits behind it; roles are checked by the routes themselves. The dispatcher page's session
/// cookie is accepted instead of the header on the dispatcher event stream only: that is the
/// one API call the page's EventSource makes, and EventSource cannot set headers.
struct AuthMiddleware: RouterMiddleware {
    let store: any Store

    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        let account: Account
        if let header = request.headers[.authorization] {
            account = try await bearer(header)
        } else if request.method == .get, request.uri.path == "/v1/events", let token = DispatchSession.token(in: request) {
            guard let found = try await store.authenticate(secretHash: token.hash) else {
                throw APIError.unauthenticated("the session has ended (token unknown, revoked or expired); sign in again")
            }
            guard found.role == .dispatcher else { throw APIError.forbidden("only a dispatcher may follow all rides with a session cookie") }
            account = found
        } else {
            throw APIError.unauthenticated("send Authorization: Bearer <token>")
        }
        var context = context
        context.account = account
        context.logger[metadataKey: "account_id"] = .string(account.id)
        return try await next(request, context)
    }

    private func bearer(_ header: String) async throws -> Account {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthenticated("the Authorization header must be Bearer <token>")
        }
        guard let secret = APITokenSecret(presented: parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw APIError.unauthenticated("malformed token")
        }
        guard let account = try await store.authenticate(secretHash: secret.hash) else {
            throw APIError.unauthenticated("unknown, revoked or expired token")
        }
        return account
    }
}
