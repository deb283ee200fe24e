import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private system bus (`dbus-daemon` on a socket of its own) with GeoClue2 mocked on it by
/// python3-dbusmock and `geoclue2_mock.py` (dbusmock has no GeoClue template): the position
/// path of issue 35 without a receiver. The test drives it and reads it back with `dbus-send`,
/// so what is asserted does not go through our own D-Bus code.
///
/// ```swift
/// let geoclue = try await GeoClueMock()
/// let location = try await GeoClueLocation.open(address: geoclue.address)
/// try geoclue.emit(latitude: 52.37, longitude: 4.89, accuracy: 4, heading: 90, speed: 8, unixTime: 1_767_225_605.25)
/// ```
public final class GeoClueMock: @unchecked Sendable {
    // @unchecked: `daemon` and `mock` are set in init and cleared by `stop()`, both called by
    // the one test that owns the mock; the rest is immutable.
    static let python = "/usr/bin/python3"
    static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("geoclue2_mock.py").path
    public static let available = FileManager.default.isExecutableFile(atPath: PrivateBus.daemon)
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/mockobject.py")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-send")
    /// For `.enabled(if:)`: run when the mock can start, or when RIDEBEACON_REQUIRE_PEERS says the
    /// peers must be there (`make test`, CI), and then fail rather than skip.
    public static let shouldRun = available || NotificationDaemonMock.required

    public static let service = "org.freedesktop.GeoClue2"
    static let manager = "/org/freedesktop/GeoClue2/Manager"

    private let bus: PrivateBus
    public var directory: URL { bus.directory }
    /// The value for `DBUS_SYSTEM_BUS_ADDRESS`.
    public var address: String { bus.address }
    private var daemon: Process?
    private var mock: Process?

    /// The bus, and GeoClue on it unless `service` is false (a device without GeoClue).
    public init(service: Bool = true) async throws {
        try FastLane.refuse("a private dbus-daemon with a GeoClue mock", tag: "process")
        guard Self.available else { throw FixtureError("dbus-daemon, dbus-send or python3-dbusmock is missing (`make deps` installs them)") }
        bus = PrivateBus(directory: try Repository.temporaryDirectory("ridebeacon-geoclue"), variable: "DBUS_SYSTEM_BUS_ADDRESS")
        daemon = try bus.launchDaemon(log: "daemon.out")
        // Generous bounds: a loaded 2-core CI box can be slow to start python.
        try await waitFor("the bus socket", seconds: 60) { FileManager.default.fileExists(atPath: self.bus.socketPath) }
        if service { try await startService() }
    }

    deinit { stop() }

    /// Starts the GeoClue mock and waits until it owns its name.
    public func startService() async throws {
        mock = try bus.launch(Self.python, ["-m", "dbusmock", "--system", "--template", Self.template], log: "geoclue.out")
        try await waitFor("the GeoClue mock", seconds: 60) {
            (try? self.send(["org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                             "string:\(Self.service)"]))?.contains("boolean true") == true
        }
    }

    /// SIGKILL the mock, as a crashing geoclue: its name leaves the bus.
    public func killService() {
        if let mock { PrivateBus.kill(mock) }
        mock = nil
    }

    public func stop() {
        // SIGKILL: children inherit the test runner's blocked signals, so SIGTERM may never land.
        killService()
        if let daemon { PrivateBus.kill(daemon) }
        daemon = nil
    }

    /// A new fix for every started client, with `LocationUpdated(old, new)`. `heading` and
    /// `speed` as GeoClue gives them (-1: unknown).
    public func emit(latitude: Double, longitude: Double, accuracy: Double, heading: Double = -1, speed: Double = -1,
                     unixTime: Double) throws {
        let seconds = UInt64(unixTime.rounded(.down))
        let microseconds = UInt64(((unixTime - Double(seconds)) * 1e6).rounded())
        _ = try send([Self.service, Self.manager, "org.freedesktop.GeoClue2.Mock.EmitLocation",
                      "double:\(latitude)", "double:\(longitude)", "double:\(accuracy)", "double:\(heading)", "double:\(speed)",
                      "uint64:\(seconds)", "uint64:\(microseconds)"])
    }

    /// One GeoClue client as the mock saw it.
    public struct Client: Decodable, Equatable, Sendable {
        public var path: String
        public var desktopId: String
        public var accuracyLevel: Int
        public var active: Bool
        /// Start and Stop, in order.
        public var calls: [String]
    }

    /// The clients the mock made, in order.
    public func clients() throws -> [Client] {
        let reply = try send([Self.service, Self.manager, "org.freedesktop.GeoClue2.Mock.State"])
        // `string "[...]"`: the JSON between the first and the last quote.
        guard let open = reply.firstIndex(of: "\""), let close = reply.lastIndex(of: "\""), open < close else {
            throw FixtureError("GeoClue mock's State answered \(reply)")
        }
        return try JSONDecoder().decode([Client].self, from: Data(reply[reply.index(after: open)..<close].utf8))
    }

    public func log() -> String { bus.log("geoclue.out") }

    /// `dbus-send --print-reply --dest=DEST PATH METHOD ARGS...` on this bus; its output.
    private func send(_ call: [String]) throws -> String {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        probe.arguments = ["--bus=\(address)", "--print-reply", "--dest=\(call[0])"] + call.dropFirst()
        let output = Pipe()
        let errors = Pipe()
        probe.standardOutput = output
        probe.standardError = errors
        try probe.run()
        let reply = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let exit = ChildExit.waitBlocking(for: probe, seconds: 10)
        guard exit == ChildExit(status: 0, signalled: false) else { throw FixtureError("dbus-send \(call.joined(separator: " ")): \(failure)") }
        return reply
    }

    private func waitFor(_ what: String, seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw FixtureError("\(what) did not start within \(Int(seconds)) s (logs in \(directory.path))") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
