import Hummingbird
import RideStore

/// Errors on the dispatcher page's routes become HTML pages a person can read (and a screen
/// reader can announce), with the status the API would give.
struct PageErrorMiddleware: RouterMiddleware {
    /// Where a refused or signed-out person signs in, and where everyone else goes back to.
    var signIn = (path: "/dispatch/login", text: "Sign in as a dispatcher")
    var home = (path: "/dispatch", text: "Back to active rides")

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
                ? signIn : home
            var response = DispatchRenderer.message(apiError.status, heading: heading, apiError.message, link: link)
            for field in apiError.headers where field.name != .contentType { response.headers.append(field) }
            return response
        }
    }
}
