import HTTPTypes
import Hummingbird
import RideStore

/// Unauthenticated endpoints for load balancers and Prometheus.
extension RideAPI {
    func addOperationsRoutes(_ routes: RouteRegistrar) {
        routes.get("/health", use: health)
        routes.get("/metrics", use: metricsText)
    }

    /// The router also matches a trailing slash; these two answer only their exact path, so
    /// a proxy rule hiding `/metrics` cannot be sidestepped with `/metrics/`.
    private func requireExactPath(_ request: Request, _ path: String) throws {
        guard request.uri.path == path else { throw APIError(.notFound, code: .notFound, "no such endpoint") }
    }

    /// 200 when the database answers, 503 (JSON error) when it does not.
    @Sendable func health(_ request: Request, context: RideContext) async throws -> HealthView {
        try requireExactPath(request, "/health")
        try await store.ping()
        return HealthView(status: "ok", database: databaseKind)
    }

    @Sendable func metricsText(_ request: Request, context: RideContext) async throws -> Response {
        try requireExactPath(request, "/metrics")
        let text = await metrics.exposition(store: store, hub: hub)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
