import Foundation
import RideClient

/// A table a screen reader reads row by row: a header row, columns separated by two spaces,
/// padded with spaces only. No borders, no box drawing, no colour.
enum PlainTable {
    static func render(header: [String], rows: [[String]]) -> String {
        let cells = ([header] + rows).map { $0.map(clean) }
        let widths = header.indices.map { column in cells.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0 }
        return cells.map { row in
            row.enumerated().map { column, cell in
                // Padded by characters: NSString's padding(toLength:) counts UTF-16 units and cut
                // names with emoji or accents in two.
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[column] - cell.count))
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// One line per cell: control characters (which the server refuses anyway) become spaces.
    /// Only category Cc: format characters (Cf) hold names and emoji together (the joiner in
    /// "👩‍💻", the marks that keep an Arabic name in order), and the scalars are put back as one
    /// string, so no character is cut in two.
    static func clean(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(scalar.properties.generalCategory == .control ? " " : scalar)
        }
        return scalars.isEmpty ? "-" : String(scalars)
    }

    /// "2026-11-25 03:04 UTC": for things older than today.
    static func date(_ date: Date) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d UTC", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
    }

    /// "2026-11-25 09:40 CET": a person's own history, in the device's time zone, named.
    static func localDate(_ date: Date, zone: TimeZone = .current) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: zone, from: date)
        let name = zone.abbreviation(for: date) ?? zone.identifier
        return String(format: "%04d-%02d-%02d %02d:%02d ", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0) + name
    }

    /// "03:04:05 UTC": short, unambiguous, readable aloud.
    static func time(_ date: Date) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%02d:%02d:%02d UTC", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
