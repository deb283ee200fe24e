import ArgumentParser
import BeaconCore
import Foundation

/// `ridebeacon scan`: print every iBeacon sighting as CSV.
///
/// Sightings come from a source — today a btsnoop capture, later a live radio (`--radio`,
/// `--seconds`) — and all sources feed the same CSV writer and summary.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Print iBeacon sightings as CSV.",
        discussion: """
            Columns: \(SightingCSV.header)
            t_s is Unix seconds; rssi_dbm is empty when the controller reported none.
            A one-line summary goes to standard error.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Read advertising reports from a btsnoop capture (datalink 1001 or 1002).", valueName: "FILE"))
    var btsnoop: String?

    @Option(name: .long, help: ArgumentHelp("Only report beacons with this proximity UUID (case-insensitive).", valueName: "UUID"))
    var uuid: String?

    /// Where sightings come from.
    enum Source {
        case capture(path: String)
    }

    func validate() throws {
        _ = try source()
        _ = try uuidFilter()
    }

    func source() throws -> Source {
        guard let btsnoop else {
            throw ValidationError("live scanning (--radio) is not available yet; use --btsnoop FILE")
        }
        return .capture(path: btsnoop)
    }

    func uuidFilter() throws -> UUID? {
        guard let uuid else { return nil }
        guard let parsed = UUID(uuidString: uuid) else {
            throw ValidationError("--uuid: '\(uuid)' is not a UUID (expected 8-4-4-4-12 hex digits)")
        }
        return parsed
    }

    func run() throws {
        switch try source() {
        case .capture(let path):
            try scanCapture(path: path, filter: try uuidFilter())
        }
    }

    private func scanCapture(path: String, filter: UUID?) throws {
        try reportingFailures {
            var reader: BtsnoopReader
            do {
                reader = try BtsnoopReader(bytes: try readFile(path))
            } catch let error as BtsnoopError {
                throw CommandLineFailure("\(path): \(error)")
            }
            var output = StandardOutput()
            output.write(SightingCSV.header)
            var scanner = CaptureBeaconScanner(uuidFilter: filter)
            // Rows before a bad record are still evidence: print them, then the error.
            defer { output.flush() }
            do {
                while let record = try reader.next() {
                    scanner.process(record) { output.write(SightingCSV.row($0)) }
                }
            } catch {
                throw CommandLineFailure("\(path): \(error)")
            }
            StandardError.writeLine(Self.summary(path: path, scanner.statistics))
        }
    }

    static func summary(path: String, _ s: CaptureBeaconScanner.Statistics) -> String {
        "scan: \(path): \(s.records) records, \(s.advertisingReports) advertising reports, "
            + "\(s.sightings) iBeacon sightings (\(s.beacons) beacons), \(s.undecodableEvents) undecodable events, "
            + "\(s.droppedAdvertisements) dropped advertisements"
    }
}
