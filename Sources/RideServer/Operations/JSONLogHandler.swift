import Foundation
import Logging

/// One JSON object per line on stderr: `{"ts":...,"level":...,"label":...,"msg":...,<metadata>}`.
/// Request logs carry `hb.request.id`, so every line of one request can be found by its
/// `X-Request-ID`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (Data) -> Void

    /// `write` receives each line (tests capture them); by default lines go to stderr.
    public init(label: String, level: Logger.Level = .info,
                write: @escaping @Sendable (Data) -> Void = { FileHandle.standardError.write($0) }) {
        self.label = label
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        let merged = metadata
            .merging(metadataProvider?.get() ?? [:]) { $1 }
            .merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged { fields[key] = "\(value)" }
        fields["ts"] = APIJSON.formatTimestamp(Date())
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["msg"] = "\(event.message)"
        guard var line = try? Self.encoder.encode(fields) else { return }
        line.append(0x0A)
        write(line)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
