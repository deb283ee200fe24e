import ArgumentParser
import BeaconCore
import BlueZ
import HCITransports
import RadioCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// `scan --radio`: one flushed CSV line per iBeacon sighting; radio loss on stderr; a compact
/// in-place status line on stderr when stdout is a terminal.
struct LiveScan {
    let selection: RadioSelection
    let filter: UUID?
    let seconds: Double?

    func run() async throws {
        let radio = try await openRadio(selection)
        StandardOutputBytes.write(Array((SightingCSV.header + "\n").utf8))
        let status = StatusLine(enabled: isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1)
        let stream = radio.scan()
        await untilInterrupted(seconds: seconds) {
            for try await event in stream {
                switch event {
                case .sighting(let sighting):
                    guard let beaconSighting = sighting.beaconSighting else { continue }
                    if let filter, beaconSighting.beacon.uuid != filter { continue }
                    status.clear()
                    StandardOutputBytes.write(Array((SightingCSV.row(beaconSighting) + "\n").utf8))
                    status.count(beaconSighting)
                case .lost(let loss):
                    status.clear()
                    StandardError.writeLine("ridebeacon: radio lost: \(loss); reconnecting")
                case .restored:
                    status.clear()
                    StandardError.writeLine("ridebeacon: radio restored: \(selection)")
                }
            }
        }
        status.clear()
        await radio.shutdown()
    }
}

/// A `--radio` value, or one stderr line naming what is wrong with it and exit status 64
/// (ArgumentParser's validation errors would add the whole usage text).
func parseRadio(_ text: String) throws -> RadioSelection {
    do {
        return try RadioSelection(parsing: text)
    } catch {
        StandardError.writeLine("ridebeacon: \(error.message)")
        throw ExitCode.validationFailure
    }
}

/// Opens a radio, turning failures into one stderr line.
func openRadio(_ selection: RadioSelection) async throws -> any Radio {
    // Said at once (issue 25): two `--radio sim` processes never hear each other.
    if case .sim = selection { StandardError.writeLine(simulatedRadioNote) }
    do { return try await connectRadio(selection) } catch {
        StandardError.writeLine("ridebeacon: \(selection): \(error)")
        throw ExitCode(1)
    }
}

let simulatedRadioNote = "ridebeacon: --radio sim is a simulated radio inside this process only: it cannot hear a driver's or passenger's --radio sim in another process (`ridebeacon demo` runs both sides in one)."

/// Opens a radio; a failure is the caller's to tell.
func connectRadio(_ selection: RadioSelection) async throws -> any Radio {
    switch selection {
    case .bluez(let adapter): return try await BlueZRadio.connect(adapter: adapter)
    default: return try await HCIRadio.connect(try selection.hciTransport())
    }
}

/// Runs `body` until it ends, `seconds` pass, or SIGINT/SIGTERM arrives.
func untilInterrupted(seconds: Double?, _ body: @escaping @Sendable () async throws -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        group.addTask { try? await body() }
        group.addTask { await Signals.next() }
        if let seconds {
            group.addTask { try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
        }
        await group.next()
        group.cancelAll()
    }
}

/// "scanning: 123 sightings, 2 beacons, last -50 dBm" redrawn in place on stderr, at most 4 times a second.
/// The line is written under the lock, so a draw and a clear reach the terminal in order.
final class StatusLine: Sendable {
    private let enabled: Bool
    private struct State {
        var sightings = 0
        var beacons: Set<String> = []
        var lastDrawn = ContinuousClock.now - .seconds(1)
        var shown = false
    }
    private let state = Mutex(State())

    init(enabled: Bool) { self.enabled = enabled }

    func count(_ s: BeaconSighting) {
        guard enabled else { return }
        state.withLock { state in
            state.sightings += 1
            state.beacons.insert("\(s.beacon.uuid) \(s.beacon.major) \(s.beacon.minor)")
            guard ContinuousClock.now - state.lastDrawn >= .milliseconds(250) else { return }
            state.lastDrawn = ContinuousClock.now
            let rssi = s.rssi.map { "\($0) dBm" } ?? "no RSSI"
            FileDescriptor.writeAll(STDERR_FILENO, Array("\r\u{1B}[Kscanning: \(state.sightings) sightings, \(state.beacons.count) beacons, last \(rssi)".utf8))
            state.shown = true
        }
    }

    func clear() {
        guard enabled else { return }
        state.withLock { state in
            if state.shown { FileDescriptor.writeAll(STDERR_FILENO, Array("\r\u{1B}[K".utf8)) }
            state.shown = false
        }
    }
}
