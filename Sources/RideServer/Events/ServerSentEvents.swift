import Foundation
import HTTPTypes
import Hummingbird
import RideStore
import ServiceLifecycle

/// Writes ride events as `text/event-stream`: stored history first, then live events, then
/// heartbeats while idle. `id:` is the global event id, so a reconnecting client's
/// `Last-Event-ID` resumes exactly where it stopped.
struct EventStream: Sendable {
    /// Tells EventSource clients how soon to reconnect after the stream ends.
    static let retryMilliseconds = 2000

    let subscription: EventHub.Subscription
    /// Yields stored events after an id, oldest first, in pages; empty when done.
    let history: @Sendable (_ after: Int64) async throws -> [RideEvent]
    /// Events up to this id were already seen by the client.
    let resumeAfter: Int64
    /// Watched for the client going away, so its listener is unregistered at once rather
    /// than at the next failed heartbeat write (up to a heartbeat interval later).
    let requestBody: RequestBody

    var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        // Reverse proxies (nginx) would otherwise buffer the stream.
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return Response(status: .ok, headers: headers, body: ResponseBody { [subscription, requestBody] writer in
            defer { subscription.end() }
            try await requestBody.consumeWithInboundCloseHandler { _ in
                try await write(to: &writer)
            } onInboundClosed: {
                subscription.end()
            }
            try await writer.finish(nil)
        })
    }

    private func write(to writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ByteBuffer(string: "retry: \(Self.retryMilliseconds)\n\n"))
        var last = resumeAfter
        while true {
            let page = try await history(last)
            var frames = ByteBuffer()
            for event in page where event.id > last {
                var frame = Self.frame(event)
                frames.writeBuffer(&frame)
                last = event.id
            }
            if frames.readableBytes > 0 { try await writer.write(frames) }
            if page.isEmpty { break }
        }
        // Ends the stream on graceful shutdown, or the server would wait for it forever.
        try await withGracefulShutdownHandler {
            while true {
                let batch = await subscription.nextBatch()
                if batch.isEmpty { return }
                // The usual batch, one event (or a heartbeat): the hub's frame itself goes to the
                // socket, shared with every other stream that got it (no copy, no allocation per
                // stream; issue 39).
                if batch.count == 1 {
                    switch batch[0] {
                    case .event(let event, let frame):
                        if event.id > last {
                            try await writer.write(frame)
                            last = event.id
                        }
                        continue
                    case .heartbeat:
                        try await writer.write(Self.heartbeatFrame)
                        continue
                    case .ended:
                        break
                    }
                }
                // Whatever queued while the last write was on its way goes out as one write.
                var frames = ByteBuffer()
                var ended = false
                for message in batch {
                    switch message {
                    case .event(let event, let frame):
                        guard event.id > last else { continue }
                        frames.writeImmutableBuffer(frame)
                        last = event.id
                    case .heartbeat:
                        frames.writeImmutableBuffer(Self.heartbeatFrame)
                    case .ended(let reason):
                        var frame = Self.errorFrame(code: reason.code, message: reason.message)
                        frames.writeBuffer(&frame)
                        ended = true
                    }
                    if ended { break }
                }
                if frames.readableBytes > 0 { try await writer.write(frames) }
                if ended { return }
            }
        } onGracefulShutdown: { [subscription] in
            subscription.end()
        }
    }

    /// An SSE comment: keeps proxies from closing an idle stream.
    static let heartbeatFrame = ByteBuffer(string: ": heartbeat\n\n")

    /// `event: error` with the API's error body, so clients tell "the server ended this
    /// stream for a reason" from a dropped connection (which they resume).
    static func errorFrame(code: APIErrorCode, message: String) -> ByteBuffer {
        let body = APIErrorBody(error: .init(code: code, message: message))
        let data = (try? APIJSON.encoder.encode(body)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return ByteBuffer(string: "event: error\ndata: \(data)\n\n")
    }

    static func frame(_ event: RideEvent) -> ByteBuffer {
        var frame = ByteBuffer(string: "id: \(event.id)\nevent: \(event.name)\ndata: ")
        frame.writeBytes(event.wireJSON)
        frame.writeString("\n\n")
        return frame
    }
}

extension Request {
    /// Where a stream resumes: `Last-Event-ID` (what EventSource sends on reconnect, so it
    /// wins over the URL it reconnects to), else `?after=`; nil when neither is given.
    func resumePoint() throws -> Int64? {
        if let header = headers[HTTPField.Name("Last-Event-ID")!] {
            let digits = header.trimmingCharacters(in: .whitespaces)
            guard (1...18).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), let id = Int64(digits), id >= 0 else {
                throw APIError.invalidParameter("Last-Event-ID", "must be an event id (1 to 18 digits)")
            }
            return id
        }
        if let after = uri.queryParameters["after"] {
            guard let id = Int64(String(after)), id >= 0 else {
                throw APIError.invalidParameter("after", "must be a non-negative integer event id")
            }
            return id
        }
        return nil
    }
}
