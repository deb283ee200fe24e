import Hummingbird

/// The client's address (`RateLimits.clientAddress`) for the pages' session lookups, which
/// take from the authentication budgets (`RateLimits.lookUpSession`). A task-local, because the
/// lookups sit under a dozen route helpers that see only the request; this middleware sits on
/// both pages' groups, so every page request has one.
enum PageClient {
    @TaskLocal static var address: String?

    /// The address, or one shared key if a lookup ever runs outside the pages' groups (it then
    /// shares one budget: stricter, never looser).
    static var current: String { address ?? "page-client-unknown" }
}

struct PageClientMiddleware: RouterMiddleware {
    let limits: RateLimits

    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        try await PageClient.$address.withValue(limits.clientAddress(request, context: context)) {
            try await next(request, context)
        }
    }
}
