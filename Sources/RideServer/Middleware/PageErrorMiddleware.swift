import Hummingbird
import RideStore

/// Errors on the dispatcher page's routes become HTML pages a person can read (and a screen
/// reader can announce), with the status the API would give.
struct PageErrorMiddleware: RouterMiddleware {
    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = ErrorMiddleware.apiError(for: error, context: context)
            let heading = switch apiError.status {
            case .unauthorized: "Please sign in"
            case .forbidden: "Not allowed"
            case .notFound: "Not found"
            case .conflict: "Nothing to do"
            case .serviceUnavailable: "Temporarily unavailable"
            case .tooManyRequests: "Too many attempts"
            default: "Something went wrong"
            }
            let link = apiError.status == .unauthorized || apiError.status == .forbidden
                ? (path: "/dispatch/login", text: "Sign in as a dispatcher") : (path: "/dispatch", text: "Back to active rides")
            var response = DispatchRenderer.message(apiError.status, heading: heading, apiError.message, link: link)
            for field in apiError.headers where field.name != .contentType { response.headers.append(field) }
            return response
        }
    }
}
