/// One dispatched server-sent event (the WHATWG event-stream format).
public struct ServerSentEvent: Sendable, Equatable {
    public var id: String?
    public var event: String?
    /// `data:` lines joined with "\n".
    public var data: String?
    /// Milliseconds, from a `retry:` field.
    public var retry: Int?

    public init(id: String? = nil, event: String? = nil, data: String? = nil, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}

/// Turns event-stream bytes, in chunks split anywhere, into events. Lines end in LF, CR or
/// CRLF (even when a CRLF is split across chunks); comments (`: heartbeat`) are dropped; a
/// blank line ends an event. Never traps: an over-long line is cut at `maxLineBytes`.
public struct ServerSentEventParser: Sendable {
    public static let maxLineBytes = 1 << 20

    private var line: [UInt8] = []
    private var afterCR = false
    private var atStart = true
    private var pending = ServerSentEvent()
    private var dataLines: [String] = []
    private var hasFields = false

    public init() {}

    public mutating func push(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var out: [ServerSentEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A:
                if let event = endLine() { out.append(event) }
            case 0x0D:
                afterCR = true
                if let event = endLine() { out.append(event) }
            default:
                if line.count < Self.maxLineBytes { line.append(byte) }
            }
        }
        return out
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        if line.isEmpty { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let text = String(decoding: line, as: UTF8.self)
        let name: Substring, value: Substring
        if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            let rest = text[text.index(after: colon)...]
            value = rest.first == " " ? rest.dropFirst() : rest
        } else {
            name = text[...]
            value = ""
        }
        switch name {
        case "id" where !value.contains("\0"): pending.id = String(value); hasFields = true
        case "event": pending.event = String(value); hasFields = true
        case "data": dataLines.append(String(value)); hasFields = true
        case "retry": if let ms = Int(value), ms >= 0 { pending.retry = ms; hasFields = true }
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            pending = ServerSentEvent()
            dataLines.removeAll()
            hasFields = false
        }
        guard hasFields else { return nil }
        var event = pending
        if !dataLines.isEmpty { event.data = dataLines.joined(separator: "\n") }
        return event
    }
}
