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
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// One line per cell: control characters (which the server refuses anyway) become spaces.
    private static func clean(_ text: String) -> String {
        let mapped = text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) }
        return mapped.isEmpty ? "-" : String(mapped)
    }

    /// "03:04:05 UTC": short, unambiguous, readable aloud.
    static func time(_ date: Date) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%02d:%02d:%02d UTC", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}

enum RideTables {
    static func rides(_ rides: [Ride]) -> String {
        guard !rides.isEmpty else { return "No active rides." }
        return PlainTable.render(
            header: ["RIDE", "STATE", "PASSENGER", "DRIVER", "VEHICLE", "SINCE"],
            rows: rides.map { [$0.id, $0.state.rawValue, $0.passenger.name, $0.driver.name, $0.driver.vehicle ?? "-", PlainTable.time($0.stateChangedAt)] })
    }

    static func requests(_ requests: [RideRequest]) -> String {
        guard !requests.isEmpty else { return "No open ride requests." }
        return PlainTable.render(
            header: ["REQUEST", "PASSENGER", "PICKUP", "DROPOFF", "NOTES", "SINCE"],
            rows: requests.map { [$0.id, $0.passengerName, $0.pickup, $0.dropoff, $0.accessibilityNotes ?? "-", PlainTable.time($0.createdAt)] })
    }
}
