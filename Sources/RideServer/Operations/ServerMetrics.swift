import Foundation
import Hummingbird
import Prometheus
import RideStore
import Synchronization

/// Prometheus metrics of one server. Each application has its own registry (not the global
/// swift-metrics factory), so tests and several servers in one process do not mix counts.
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private static let buckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2), .seconds(5),
    ]

    public init() {}

    /// `route` is the matched pattern (`/v1/rides/{id}`), never the raw path, so ids do not
    /// become label values.
    /// Methods outside HTTP's own (a client may send any token) are counted as `other`, so
    /// clients cannot grow the series without bound.
    func recordRequest(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, duration: Duration) {
        let method = Self.standardMethods.contains(method) ? method : Self.otherMethod
        let key = RequestSeries.Key(route: route, method: method.rawValue, status: status.code)
        if let series = requestSeries.withLock({ $0[key] }) {
            series.count.increment()
            series.duration.record(duration)
            return
        }
        let series = RequestSeries(count: makeRequestCounter(route: route, method: method, status: status),
                                   duration: makeRequestHistogram(route: route, method: method))
        requestSeries.withLock { $0[key] = series }
        series.count.increment()
        series.duration.record(duration)
    }

    /// A request's two series, found once per route, method and status: the registry's lookup
    /// (descriptor strings, label arrays, a lock and a hash of all of them) cost more per
    /// request than recording (issue 39).
    private struct RequestSeries: Sendable {
        struct Key: Hashable, Sendable {
            let route: String
            let method: String
            let status: Int
        }
        let count: Counter
        let duration: DurationHistogram
    }
    private let requestSeries = Mutex<[RequestSeries.Key: RequestSeries]>([:])
    private static let standardMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .connect, .options, .trace, .patch]
    private static let otherMethod = HTTPRequest.Method("other")!

    private func makeRequestCounter(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status) -> Counter {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "ridebeacon", metricName: "http_requests", unitName: "total",
                                             helpText: "HTTP requests by route, method and status"),
            labels: [("route", route), ("method", method.rawValue), ("status", String(status.code))]
        )
    }

    private func makeRequestHistogram(route: String, method: HTTPRequest.Method) -> DurationHistogram {
        registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(namespace: "ridebeacon", metricName: "http_request_duration", unitName: "seconds",
                                             helpText: "Time to the response head (for streams: until the stream starts)"),
            labels: [("route", route), ("method", method.rawValue)],
            buckets: Self.buckets
        )
    }

    enum Limit: String { case authenticationFailures = "authentication_failures", touchProofs = "touch_proofs", locator, messages, positions }

    func recordRateLimited(_ limit: Limit) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "ridebeacon", metricName: "rate_limited", unitName: "total",
                                             helpText: "Requests refused with 429, by limit"),
            labels: [("limit", limit.rawValue)]
        ).increment()
    }

    /// `outcome` is `confirmed`, `awaiting_counterpart`, `touch_not_simultaneous` or a rejection's error code: a fixed
    /// set, never a ride id or anything from the proof.
    func recordTouchProof(outcome: String) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "ridebeacon", metricName: "touch_proofs", unitName: "total",
                                             helpText: "Touch proofs by outcome (accepted, or the rejection's code)"),
            labels: [("outcome", outcome)]
        ).increment()
    }

    /// The exposition text, with gauges read fresh from the store and the event hub.
    func exposition(store: (any RideLifecycleStore & StoreNotifications), hub: EventHub) async -> String {
        let up = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ridebeacon", metricName: "database_up", unitName: "",
            helpText: "1 when the last scrape could read the database"))
        do {
            let counts = try await store.rideCounts()
            for state in RideState.allCases {
                registry.makeGauge(
                    descriptor: MetricNameDescriptor(namespace: "ridebeacon", metricName: "rides", unitName: "",
                                                     helpText: "Rides by state; requested counts open ride requests"),
                    labels: [("state", state.rawValue)]
                ).set(Double(counts[state] ?? 0))
            }
            up.set(1.0)
        } catch {
            up.set(0.0)
        }
        registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ridebeacon", metricName: "commit_observation_failures", unitName: "",
            helpText: "Times the store's watch on its own commits failed and was restarted (streams polled meanwhile)"))
            .set(Double(store.commits.observationFailures))
        registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ridebeacon", metricName: "event_listeners", unitName: "",
            helpText: "Open server-sent event streams")).set(Double(await hub.listenerCount))
        registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ridebeacon", metricName: "event_listeners_cut_off", unitName: "",
            helpText: "Streams ended because their reader fell behind")).set(Double(await hub.cutOffListeners))
        registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "ridebeacon", metricName: "event_streams_ended_by_token", unitName: "",
            helpText: "Streams ended because their token was revoked or expired")).set(Double(await hub.endedStreams))
        return registry.emitToString()
    }
}

/// Counts every request once its response is ready, by matched route and final status.
struct MetricsMiddleware: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        metrics.recordRequest(route: context.matchedRoute, method: request.method, status: response.status, duration: ContinuousClock.now - started)
        return response
    }
}
