import Foundation
import Logging
import RideWire

/// One JSON object per line: `{"label":...,"level":...,"msg":...,"ts":...,<metadata>}`, keys
/// sorted. Request logs carry `hb.request.id`, so every line of one request can be found by its
/// `X-Request-ID`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: (@Sendable ([UInt8]) -> Void)?

    /// `write` receives each line (tests and the audit file take them); by default lines go to
    /// stderr through `LogLineWriter`, so logging never waits for the log's reader, except for
    /// audit records (`AdminAudit`), which must not be dropped.
    public init(label: String, level: Logger.Level = .info, write: (@Sendable ([UInt8]) -> Void)? = nil) {
        self.label = label
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // Later sources win: the handler's own, then the provider's, then the call's.
        var fields = [String: String](minimumCapacity: metadata.count + (event.metadata?.count ?? 0) + 4)
        for (key, value) in metadata { fields[key] = "\(value)" }
        if let provided = metadataProvider?.get() { for (key, value) in provided { fields[key] = "\(value)" } }
        if let own = event.metadata { for (key, value) in own { fields[key] = "\(value)" } }
        fields["ts"] = APIJSON.formatTimestamp(Date())
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["msg"] = "\(event.message)"
        let line = JSONLogLine.encode(fields)
        if let write {
            write(line)
        } else {
            LogLineWriter.standardError.write(line, essential: fields[AdminAudit.marker] != nil)
        }
    }
}

/// A flat string-to-string JSON object on one line, keys sorted, newline-terminated, written by
/// `WireJSONWriter` (the bytes JSONEncoder with sorted keys wrote): JSONEncoder itself cost a
/// visible share of every request's CPU for the access-log line alone. Control characters are
/// escaped, so a value holding a newline can never start a forged line.
enum JSONLogLine {
    static func encode(_ fields: [String: String]) -> [UInt8] {
        var writer = WireJSONWriter(capacity: 64 + fields.count * 32)
        writer.object { object in
            for key in fields.keys.sorted() {
                object.key(key)
                object.string(fields[key]!)
            }
        }
        return writer.bytes + [0x0A]
    }
}
