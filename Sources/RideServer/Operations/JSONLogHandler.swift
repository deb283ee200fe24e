import Foundation
import Logging

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
            LogLineWriter.standardError.write(line, essential: fields["audit"] != nil)
        }
    }
}

/// A flat string-to-string JSON object on one line, keys sorted, newline-terminated. By hand:
/// JSONEncoder cost a visible share of every request's CPU for the access-log line alone.
enum JSONLogLine {
    static func encode(_ fields: [String: String]) -> [UInt8] {
        var line = [UInt8]()
        line.reserveCapacity(64 + fields.count * 32)
        line.append(UInt8(ascii: "{"))
        for (index, key) in fields.keys.sorted().enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            appendString(key, to: &line)
            line.append(UInt8(ascii: ":"))
            appendString(fields[key]!, to: &line)
        }
        line.append(UInt8(ascii: "}"))
        line.append(0x0A)
        return line
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// RFC 8259 string: quote, backslash and every control character escaped, so a value
    /// holding a newline can never start a forged line; everything else as its UTF-8.
    private static func appendString(_ text: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): line.append(UInt8(ascii: "\\")); line.append(byte)
            case 0x0A: line.append(UInt8(ascii: "\\")); line.append(UInt8(ascii: "n"))
            case 0x0D: line.append(UInt8(ascii: "\\")); line.append(UInt8(ascii: "r"))
            case 0x09: line.append(UInt8(ascii: "\\")); line.append(UInt8(ascii: "t"))
            case 0x00..<0x20, 0x7F:
                line.append(contentsOf: "\\u00".utf8)
                line.append(hexDigits[Int(byte >> 4)])
                line.append(hexDigits[Int(byte & 0x0F)])
            default: line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }
}
