import HTTPTypes
import Hummingbird
import RideStore

/// Endpoints for load balancers (`/health`, open) and Prometheus (`/metrics`: with a token,
/// or from this machine only).
struct OperationsRoutes<Context: RideRequestContext>: Sendable {
    let store: any StoreLifecycle
    /// `Authorization: Bearer` value `/metrics` wants; nil: it answers only loopback clients
    /// that did not come through the proxy (issue 36: it answered anyone who reached the server).
    let metricsToken: String?
    /// The proxy's client address header (`RateLimitConfiguration.clientAddressHeader`): a
    /// request carrying it came through the proxy, so its loopback peer is not the client.
    let proxyHeader: HTTPField.Name?
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

    /// The configured token (compared in constant time), or, without one, a loopback peer that
    /// is not the proxy relaying someone.
    private func admitScraper(_ request: Request, context: Context) throws {
        if let metricsToken {
            let presented = Array((request.headers[.authorization] ?? "").utf8), expected = Array("Bearer \(metricsToken)".utf8)
            guard presented.count == expected.count, zip(presented, expected).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else {
                var error = APIError.unauthenticated("/metrics wants Authorization: Bearer and the token in serve's --metrics-token-file")
                error.headers[.wwwAuthenticate] = #"Bearer realm="ridebeacon-metrics""#
                throw error
            }
            return
        }
        let viaProxy = proxyHeader.map { request.headers[$0] != nil } ?? false
        guard !viaProxy, Self.isLoopback(context.peerAddress) else {
            throw APIError.forbidden("/metrics answers only this machine; give serve --metrics-token-file to scrape it from elsewhere")
        }
    }

    static func isLoopback(_ address: String) -> Bool {
        ConnectionGuardHandler.isLoopback(address)
    }

    /// 200 when the database answers, 503 (JSON error) when it does not.
    @Sendable func health(_ request: Request, context: Context) async throws -> HealthView {
        try requireExactPath(request, "/health")
        try await store.ping()
        return HealthView(status: "ok", database: databaseKind)
    }

    @Sendable func metricsText(_ request: Request, context: Context) async throws -> Response {
        try requireExactPath(request, "/metrics")
        try admitScraper(request, context: context)
        let text = await exposition()
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
