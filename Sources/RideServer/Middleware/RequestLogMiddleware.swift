import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RideStore

/// Outermost: gives the request its id (a caller's own `X-Request-ID` when it is safe to log,
/// so one id follows a request through a proxy), returns it, and writes one access-log line.
struct RequestLogMiddleware: RouterMiddleware {
    static let header = HTTPField.Name("X-Request-ID")!
    /// 401 and 429 are logged sampled, with counts (see `FailureLogSampler`).
    let failures: FailureLogSampler

    func handle(_ request: Request, context: RideContext, next: (Request, RideContext) async throws -> Response) async throws -> Response {
        var context = context
        if let presented = request.headers[Self.header], Self.isSafe(presented) {
            context.requestID = presented
        }
        context.logger[metadataKey: "hb.request.id"] = .string(context.requestID)
        let started = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[Self.header] = context.requestID
        let elapsed = ContinuousClock.now - started
        if FailureLogSampler.isSampled(response.status) {
            guard let summary = failures.record(response.status) else { return response }
            context.logger.notice("failed authentications or rate-limited requests (sampled)", metadata: [
                "http.path": .string(request.uri.path),
                "http.status": .stringConvertible(response.status.code),
                "count_401": .stringConvertible(summary.unauthorized),
                "count_429": .stringConvertible(summary.rateLimited),
                "sample_interval_s": .stringConvertible(Int(failures.interval)),
            ])
            return response
        }
        context.logger.info("request", metadata: [
            "http.method": .string(request.method.rawValue),
            "http.path": .string(request.uri.path),
            "http.route": .string(context.matchedRoute),
            "http.status": .stringConvertible(response.status.code),
            "duration_ms": .string(Self.milliseconds(elapsed)),
        ])
        return response
    }

    /// `12.34`: milliseconds to two places, rounded half up, without Foundation's formatter on
    /// every request.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        // An elapsed time on a monotonic clock: never negative.
        let hundredths = max(0, seconds * 100_000 + (attoseconds + 5_000_000_000_000) / 10_000_000_000_000)
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    static func isSafe(_ id: String) -> Bool {
        (1...128).contains(id.count) && id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.:".unicodeScalars.contains($0)) }
    }
}

extension RideContext {
    /// The route pattern that answered (`/v1/rides/{id}`), or "unmatched"; never the raw path,
    /// so ids stay out of metric labels.
    var matchedRoute: String {
        guard let path = endpointPath, path != "NotFound" else { return "unmatched" }
        return path
    }
}
