import AsyncHTTPClient
import Foundation
import NIOCore

/// One parsed server-sent event (or comment) block.
struct SSEMessage: Sendable, Equatable {
    var id: String?
    var event: String?
    var data: String?
    var comment: String?
    var retry: String?

    var eventID: Int64? { id.flatMap { Int64($0) } }
    var json: [String: Any] {
        (data.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }) as? [String: Any] ?? [:]
    }
}

/// Reads an event stream from a live server in the background; tests poll what arrived.
final class SSEReader: Sendable {
    let status: Int
    let contentType: String?
    private let buffer = Buffer()
    private let task: Task<Void, Never>

    actor Buffer {
        var messages: [SSEMessage] = []
        var ended = false
        func append(_ message: SSEMessage) { messages.append(message) }
        func end() { ended = true }
    }

    static func open(port: Int, path: String, token: String, headers: [String: String] = [:]) async throws -> SSEReader {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        return SSEReader(response: response)
    }

    private init(response: HTTPClientResponse) {
        status = Int(response.status.code)
        contentType = response.headers.first(name: "Content-Type")
        let buffer = self.buffer
        task = Task {
            var pending = ""
            do {
                for try await chunk in response.body {
                    pending += String(buffer: chunk)
                    while let range = pending.range(of: "\n\n") {
                        let block = String(pending[..<range.lowerBound])
                        pending.removeSubrange(..<range.upperBound)
                        await buffer.append(Self.parse(block))
                    }
                }
            } catch {}
            await buffer.end()
        }
    }

    static func parse(_ block: String) -> SSEMessage {
        var message = SSEMessage()
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { message.comment = String(line.dropFirst()).trimmingCharacters(in: .whitespaces); continue }
            let parts = line.split(separator: ":", maxSplits: 1)
            let value = parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""
            switch parts.first {
            case "id": message.id = value
            case "event": message.event = value
            case "data": message.data = (message.data.map { $0 + "\n" } ?? "") + value
            case "retry": message.retry = value
            default: break
            }
        }
        return message
    }

    var messages: [SSEMessage] { get async { await buffer.messages } }
    var events: [SSEMessage] { get async { await buffer.messages.filter { $0.event != nil } } }
    var ended: Bool { get async { await buffer.ended } }

    /// Waits until `condition` holds for the messages so far, or the timeout passes.
    @discardableResult
    func wait(timeout: Duration = .seconds(60), until condition: ([SSEMessage]) -> Bool) async -> [SSEMessage] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let now = await buffer.messages
            if condition(now) { return now }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await buffer.messages
    }

    /// Waits for the stream to end; true if it did within the timeout.
    func waitForEnd(timeout: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await buffer.ended { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    func close() { task.cancel() }
}
