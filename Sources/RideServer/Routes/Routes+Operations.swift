import HTTPTypes
import Hummingbird
import RideStore

/// Unauthenticated endpoints for load balancers and Prometheus.
struct OperationsRoutes<Context: RideRequestContext>: Sendable {
    let store: any Store
    /// "sqlite" or "postgresql", for /health.
    let databaseKind: String
    /// The Prometheus exposition text, read fresh on every scrape.
    let exposition: @Sendable () async -> String

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.get("/health", use: health)
        routes.get("/metrics", use: metricsText)
    }

    /// The router also matches a trailing slash; these two answer only their exact path, so
    /// a proxy rule hiding `/metrics` cannot be sidestepped with `/metrics/`.
    private func requireExactPath(_ request: Request, _ path: String) throws {
        guard request.uri.path == path else { throw APIError(.notFound, code: .notFound, "no such endpoint") }
    }

    /// 200 when the database answers, 503 (JSON error) when it does not.
    @Sendable func health(_ request: Request, context: Context) async throws -> HealthView {
        try requireExactPath(request, "/health")
        try await store.ping()
        return HealthView(status: "ok", database: databaseKind)
    }

    @Sendable func metricsText(_ request: Request, context: Context) async throws -> Response {
        try requireExactPath(request, "/metrics")
        let text = await exposition()
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
