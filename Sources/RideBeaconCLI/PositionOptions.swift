import ArgumentParser
import BeaconCore
import BlueZ
import Foundation
import RideSession

/// `--position` and `--positions` of the commands a device runs at the kerb (issue 35): where
/// its satellite position comes from, for the ride's other party to see.
struct PositionOptions: ParsableArguments {
    @Option(name: .customLong("position"),
            help: ArgumentHelp("This device's position where it has no receiver: latitude and longitude in degrees, and the accuracy in metres (default 10).",
                               valueName: "LAT,LON[,ACC]"))
    var fixed: String?
    @Option(name: .customLong("positions"),
            help: ArgumentHelp("Share this device's satellite position with the ride's other party: auto (GeoClue, when it runs) or off.",
                               valueName: "auto|off"))
    var mode = PositionsMode.auto

    func validate() throws {
        if let fixed {
            do { _ = try FixedPositionSource(parsing: fixed) } catch { throw ValidationError("--position: \(error)") }
            guard mode != .off else { throw ValidationError("--position gives a position to share, --positions off shares none: choose one") }
        }
    }

    /// What the options ask for.
    var choice: PositionChoice {
        if let fixed { return .fixed(fixed) }
        return mode == .auto ? .geoClue : .off
    }
}

/// Where a device's shared position comes from, once the options are read.
enum PositionChoice: Sendable, Equatable {
    /// `--position LAT,LON[,ACC]`.
    case fixed(String)
    /// `--positions auto`: GeoClue's fixes when it runs.
    case geoClue
    /// `--positions off`, and commands that share none.
    case off

    /// The device's position source, said in one line: `--position`'s, GeoClue's, or nil
    /// (off, or no GeoClue: then the plain sentence why). `stop` releases GeoClue.
    func open(for side: BeaconSide) async -> (source: any PositionSource, stop: @Sendable () async -> Void)? {
        let other = side == .driver ? "passenger" : "driver"
        switch self {
        case .off:
            return nil
        case .fixed(let text):
            guard let source = try? FixedPositionSource(parsing: text) else { return nil }
            StandardError.writeLine("ridebeacon: position: \(text) (--position), shared with the ride's \(other)")
            return (source, {})
        case .geoClue:
            switch await GeoClueLocation.auto() {
            case .success(let location):
                StandardError.writeLine("ridebeacon: position: GeoClue, shared with the ride's \(other)")
                return (StreamPositionSource(location.fixes), { await location.close() })
            case .failure(let why):
                StandardError.writeLine("ridebeacon: " + PositionWords.none(why, side: side))
                return nil
            }
        }
    }
}

/// `--positions`: whether the device shares its satellite position.
enum PositionsMode: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// GeoClue's fixes when GeoClue runs (or `--position`'s).
    case auto
    /// None.
    case off
}

/// No satellite position, in one plain sentence (issue 25) instead of the D-Bus error.
enum PositionWords {
    static func none(_ why: GeoClueLocation.Unavailable, side: BeaconSide) -> String {
        let consequence = side == .passenger ? "guiding uses Bluetooth only" : "the passenger's phone finds the car by Bluetooth only"
        switch why.reason {
        case .noBus, .notRunning: return "No satellite position: GeoClue is not running on this device; \(consequence)."
        case .refused: return "No satellite position: GeoClue refused it (allow ridebeacon in /etc/geoclue/geoclue.conf); \(consequence)."
        }
    }
}

/// A device's running position sharing (issue 35) and the source under it.
struct DevicePositions: Sendable {
    let sharing: PositionSharing
    private let task: Task<Void, Never>
    private let stopSource: @Sendable () async -> Void

    /// Starts sharing on `rideID` as `side` when `choice` gives a source; nil otherwise.
    static func start(_ choice: PositionChoice, rideID: String, side: BeaconSide, service: any RideService) async -> DevicePositions? {
        guard let opened = await choice.open(for: side) else { return nil }
        let sharing = PositionSharing(rideID: rideID, side: side, source: opened.source, service: service) { line in
            StandardError.writeLine("ridebeacon: \(line)")
        }
        return DevicePositions(sharing: sharing, task: Task { await sharing.run() }, stopSource: opened.stop)
    }

    /// Stops reporting and polling, and releases the source.
    func stop() async {
        task.cancel()
        await task.value
        await stopSource()
    }
}
