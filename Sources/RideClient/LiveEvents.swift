import AsyncHTTPClient
import Foundation
import NIOCore

/// What a live event stream delivers: ride events, and how the connection is doing, so a guide
/// can say "Cannot reach the ride service, retrying" and carry on.
public enum LiveUpdate: Sendable, Equatable {
    /// (Re)connected; after `interrupted` this means the stream resumed where it broke.
    case connected
    case event(RideEvent)
    /// The stream broke and will reconnect after `retryingIn`, resuming after the last event.
    case interrupted(RideClientError, retryingIn: Duration)

    public var event: RideEvent? {
        if case .event(let event) = self { event } else { nil }
    }
}

extension RideServiceClient {
    /// One ride's history (unless resuming `after` an event id), then its live changes. Broken
    /// connections are resumed with `Last-Event-ID`, so no event is lost or repeated. Ends by
    /// throwing `RideClientError` when the server refuses (4xx) or `streamRetry` gives up;
    /// ends quietly when the consumer stops iterating.
    public func rideEvents(_ rideID: String, after: Int64? = nil) -> AsyncThrowingStream<LiveUpdate, any Error> {
        liveStream(path: "/v1/rides/\(Self.segment(rideID))/events", after: after)
    }

    /// Every ride's and request's changes (dispatchers): from now, or replayed from `after`.
    public func allEvents(after: Int64? = nil) -> AsyncThrowingStream<LiveUpdate, any Error> {
        liveStream(path: "/v1/events", after: after)
    }

    func liveStream(path: String, after: Int64?) -> AsyncThrowingStream<LiveUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LiveUpdate, any Error>.makeStream()
        let task = Task {
            var lastEventID = after
            var failures = 0
            while true {
                let failure: RideClientError
                do {
                    try await self.follow(path, after: lastEventID) { update in
                        switch update {
                        case .connected: failures = 0
                        case .event(let event): lastEventID = event.id
                        case .interrupted: break
                        }
                        continuation.yield(update)
                    }
                    failure = .unreachable("the ride service ended the event stream")
                } catch {
                    failure = Task.isCancelled ? .cancelled : Self.classify(error)
                }
                if failure == .cancelled {
                    continuation.finish()
                    return
                }
                failures += 1
                guard failure.isRetryable, configuration.streamRetry.allowsAttempt(failures + 1) else {
                    continuation.finish(throwing: failure)
                    return
                }
                let delay = configuration.streamRetry.delay(afterAttempt: failures, retryAfterSeconds: failure.problem?.retryAfter)
                continuation.yield(.interrupted(failure, retryingIn: delay))
                do { try await Task.sleep(for: delay) } catch {
                    continuation.finish()
                    return
                }
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// One connection: returns when the server ends the stream, throws when it breaks.
    private func follow(_ path: String, after: Int64?, deliver: (LiveUpdate) -> Void) async throws(RideClientError) {
        var request = makeRequest(path, accept: "text/event-stream")
        if let after { request.headers.add(name: "Last-Event-ID", value: String(after)) }
        do {
            let response = try await http.execute(request, timeout: TimeAmount(configuration.requestTimeout))
            let status = Int(response.status.code)
            guard status == 200 else {
                let body = (try? await response.body.collect(upTo: 1 << 16)).map { Data(buffer: $0) } ?? Data()
                throw Self.failure(status: status, body: body, retryAfter: response.headers.first(name: "Retry-After"))
            }
            deliver(.connected)
            var parser = ServerSentEventParser()
            for try await chunk in response.body {
                for message in parser.push(chunk.readableBytesView) {
                    guard let data = message.data else { continue }
                    // The server ended the stream for a reason (token revoked or expired): as
                    // final as a 401, so no reconnecting with a token that no longer works.
                    if message.event == "error" {
                        throw Self.failure(status: 401, body: Data(data.utf8), retryAfter: nil)
                    }
                    do {
                        deliver(.event(try APIDates.decoder.decode(RideEvent.self, from: Data(data.utf8))))
                    } catch {
                        throw RideClientError.invalidResponse("\(path): event \(message.id ?? "?"): \(Self.describe(decoding: error))")
                    }
                }
            }
        } catch {
            throw Self.classify(error)
        }
    }
}
