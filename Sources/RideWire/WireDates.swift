import Foundation

/// The API's timestamps: RFC 3339 in UTC with milliseconds when written; with or without
/// fractional seconds, and with a lower-case `t` or `z`, when read (RFC 3339 allows them,
/// Foundation's parser does not).
public enum WireDates {
    /// Made once: building the style per call cost as much as formatting with it.
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// `2026-01-01T12:00:00.000Z`.
    public static func format(_ date: Date) -> String { style.format(date) }

    /// nil unless `text` is an RFC 3339 date-time.
    public static func parse(_ text: String) -> Date? {
        let normalized = text.uppercased()
        return (try? style.parse(normalized)) ?? (try? Date.ISO8601FormatStyle().parse(normalized))
    }

    /// A decoder for the API's bodies (dates as above).
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date-time: \(text)")
            }
            return date
        }
        return decoder
    }
}
