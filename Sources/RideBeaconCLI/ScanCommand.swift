import ArgumentParser
import BeaconCore
import RadioCore
import Foundation

/// `ridebeacon scan`: print every iBeacon sighting as CSV.
///
/// Sightings come from a source — a btsnoop capture or a live radio (`--radio`, `--seconds`) —
/// and both feed the same CSV writer.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Print iBeacon sightings as CSV.",
        discussion: """
            Columns: \(SightingCSV.header)
            t_s is Unix seconds; rssi_dbm is empty when the controller reported none.
            With --btsnoop, a one-line summary goes to standard error.
            With --radio, one line is printed and flushed per sighting until --seconds pass
            or Ctrl-C; radio lost and restored messages go to standard error.
            Radios: bluez[:hci0] (bluetoothd over D-Bus; DBUS_SYSTEM_BUS_ADDRESS is honoured),
            h4:tcp:HOST:PORT, h4:unix:PATH, h4:tty:/dev/ttyACM0[:BAUD], hci:hci0, sim.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Read advertising reports from a btsnoop capture (datalink 1001 or 1002).", valueName: "FILE"))
    var btsnoop: String?

    @Option(name: .long, help: ArgumentHelp("Scan live with this radio, for example h4:tty:/dev/ttyACM0 or h4:tcp:127.0.0.1:9000.", valueName: "RADIO"))
    var radio: String?

    @Option(name: .long, help: ArgumentHelp("With --radio, stop after this many seconds (default: until interrupted).", valueName: "S"))
    var seconds: Double?

    @Option(name: .long, help: ArgumentHelp("Only report beacons with this proximity UUID (case-insensitive).", valueName: "UUID"))
    var uuid: String?

    /// Where sightings come from.
    enum Source {
        case capture(path: String)
        case radio(RadioSelection)
    }

    func validate() throws {
        _ = try source()
        _ = try uuidFilter()
    }

    func source() throws -> Source {
        switch (btsnoop, radio) {
        case (let path?, nil):
            return .capture(path: path)
        case (nil, let radio?):
            if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive") }
            return .radio(try parseRadio(radio))
        case (nil, nil):
            throw ValidationError("give --btsnoop FILE or --radio RADIO")
        case (_?, _?):
            throw ValidationError("give either --btsnoop or --radio, not both")
        }
    }

    func uuidFilter() throws -> UUID? {
        guard let uuid else { return nil }
        guard let parsed = UUID(uuidString: uuid) else {
            throw ValidationError("--uuid: '\(uuid)' is not a UUID (expected 8-4-4-4-12 hex digits)")
        }
        return parsed
    }

    func run() async throws {
        switch try source() {
        case .capture(let path):
            try scanCapture(path: path, filter: try uuidFilter())
        case .radio(let selection):
            try await LiveScan(selection: selection, filter: try uuidFilter(), seconds: seconds).run()
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
