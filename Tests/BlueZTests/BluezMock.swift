@testable import BlueZ
@testable import HCITransports
@testable import RadioCore
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` with Debian's python3-dbusmock bluez5 template (extended by
/// bluez5_le_mock.py) owning org.bluez on it: bluetoothd's D-Bus API without a controller.
/// The radio under test is pointed at the bus by address; the test drives the mock through its
/// org.bluez.Mock methods, which answer in JSON so assertions do not rely on our own decoder.
final class BluezMock: @unchecked Sendable {
    // @unchecked: its processes are started and stopped only by the one test that owns the
    // mock, one call at a time; the rest is immutable.
    static let python = "/usr/bin/python3"
    static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("bluez5_le_mock.py").path
    static let available = FileManager.default.isExecutableFile(atPath: PrivateBus.daemon)
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/bluez5.py")
    /// For `.enabled(if:)`: run when the peers are installed, or when they are required (and then fail).
    static let shouldRun = available || BumbleControllers.required

    /// The private system bus (RideBeaconTesting's launcher).
    let privateBus: PrivateBus
    var directory: URL { privateBus.directory }
    var address: String { privateBus.address }
    private var daemonProcess: Process?
    private var mockProcess: Process?
    /// Mocks whose name a newer one took over (still running until stop).
    private var replacedMocks: [Process] = []
    private var control: DBusConnection?

    /// Only the private system bus, for dbusmock's mocks of other services on it
    /// (`startDbusmock`, `SensorProxyCompassTests`).
    static func startBus() async throws -> BluezMock {
        guard available else {
            throw BumbleControllers.PeerMissing(message: "dbus-daemon or python3-dbusmock is missing (`make deps` installs them)")
        }
        let mock = try BluezMock()
        try await mock.startDaemon()
        return mock
    }

    /// Starts the bus and the mock with adapter `hci0` (LEAdvertisingManager1 included).
    static func start(adapter: String? = "hci0") async throws -> BluezMock {
        guard available else {
            throw BumbleControllers.PeerMissing(message: "dbus-daemon or python3-dbusmock is missing (`make deps` installs them)")
        }
        let mock = try BluezMock()
        try await mock.startDaemon()
        try await mock.startMock()
        if let adapter { try await mock.addAdapter(adapter) }
        return mock
    }

    private init() throws {
        privateBus = PrivateBus(directory: try Repository.temporaryDirectory("ridebeacon-dbus"), variable: "DBUS_SYSTEM_BUS_ADDRESS")
    }

    deinit {
        for process in replacedMocks + [mockProcess, daemonProcess].compactMap({ $0 }) { PrivateBus.kill(process) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The daemon on a socket of our own; `--session` policy lets anyone own any name.
    func startDaemon() async throws {
        // Generous: on a loaded 2-core CI machine the daemon and the Hello round trip can be
        // slow. A daemon that has not made its socket in 20 s is replaced (seen in full-suite
        // runs: running, socket never made); three tries, a minute in all.
        var failures: [String] = []
        for _ in 0..<3 {
            if let failure = try await launchDaemon(within: .seconds(20)) { failures.append(failure) } else { return }
        }
        throw BumbleControllers.PeerMissing(message: "dbus-daemon did not come up on \(address): " + failures.joined(separator: " | "))
    }

    /// nil once the control connection is open; otherwise why not, after stopping the daemon.
    private func launchDaemon(within limit: Duration) async throws -> String? {
        if let stale = daemonProcess, stale.isRunning {
            Glibc.kill(stale.processIdentifier, SIGKILL)
            ChildExit.waitBlocking(for: stale, seconds: 10)
        }
        try? FileManager.default.removeItem(atPath: "\(directory.path)/bus")
        let daemon = try privateBus.launchDaemon()
        daemonProcess = daemon
        let deadline = ContinuousClock.now + limit
        var lastError = "no attempt"
        while ContinuousClock.now < deadline {
            do {
                control = try await DBusConnection.open(address: address)
                return nil
            } catch {
                lastError = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        // What the daemon was doing, for the next person to read: its state and kernel wait.
        let proc = "/proc/\(daemon.processIdentifier)"
        let stat = (try? String(contentsOfFile: proc + "/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first ?? "?"
        let wchan = (try? String(contentsOfFile: proc + "/wchan", encoding: .utf8)) ?? "?"
        let log = (try? String(contentsOf: directory.appendingPathComponent("dbus-daemon.log"), encoding: .utf8)) ?? ""
        let directoryThere = FileManager.default.fileExists(atPath: directory.path)
        Glibc.kill(daemon.processIdentifier, SIGKILL)
        ChildExit.waitBlocking(for: daemon, seconds: 10)
        return "last: \(lastError); state \(stat), wchan \(wchan), directory there: \(directoryThere); log: \(log.prefix(300))"
    }

    /// Ends the mock, the control connection and the bus.
    func stop() async {
        killMock()
        for process in replacedMocks where process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            ChildExit.waitBlocking(for: process, seconds: 10)
        }
        replacedMocks = []
        await killDaemon()
    }

    /// SIGKILL the bus itself: every connection drops at once.
    func killDaemon() async {
        await control?.close()
        control = nil
        if let daemonProcess { Glibc.kill(daemonProcess.processIdentifier, SIGKILL); ChildExit.waitBlocking(for: daemonProcess, seconds: 10) }
        daemonProcess = nil
    }

    /// Starts a mock; with one running, the new one takes org.bluez over (dbusmock replaces the owner).
    func startMock() async throws {
        try await startDbusmock(["--template", Self.template], owning: "org.bluez")
    }

    /// Starts `python3 -m dbusmock --system ARGUMENTS` and waits until it owns `name`.
    func startDbusmock(_ arguments: [String], owning name: String) async throws {
        if let mockProcess { replacedMocks.append(mockProcess) }
        // Like the daemon: a mock that has not claimed the name in 20 s is replaced (seen in
        // full-suite runs on a loaded machine: running, silent); three tries.
        var failures: [String] = []
        for _ in 0..<3 {
            let mock = try privateBus.launch(Self.python, ["-m", "dbusmock", "--system"] + arguments, log: "dbusmock.log")
            mockProcess = mock
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                let owned = try? await bus().call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                   "NameHasOwner", [.string(name)])
                if owned?.first == .boolean(true) { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            let stat = (try? String(contentsOfFile: "/proc/\(mock.processIdentifier)/stat", encoding: .utf8))?
                .split(separator: " ").dropFirst(2).first ?? "?"
            failures.append("state \(stat), log: \(log("dbusmock.log").prefix(300))")
            Glibc.kill(mock.processIdentifier, SIGKILL)
            ChildExit.waitBlocking(for: mock, seconds: 10)
        }
        throw BumbleControllers.PeerMissing(message: "dbusmock did not claim \(name): " + failures.joined(separator: " | "))
    }

    /// A method call on the bus from the test's own control connection.
    @discardableResult
    func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
              _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await bus().call(destination, path, interface, member, arguments)
    }

    /// SIGKILL, as a crashing bluetoothd: its name vanishes with no InterfacesRemoved.
    func killMock() {
        guard let mockProcess else { return }
        Glibc.kill(mockProcess.processIdentifier, SIGKILL)
        ChildExit.waitBlocking(for: mockProcess, seconds: 10)
        self.mockProcess = nil
    }

    func log(_ name: String) -> String { privateBus.log(name) }

    private func bus() throws -> DBusConnection {
        guard let control else { throw BumbleControllers.PeerMissing(message: "no control connection") }
        return control
    }

    @discardableResult
    func mock(_ member: String, _ arguments: [DBusValue] = [], path: String = "/") async throws -> [DBusValue] {
        try await bus().call("org.bluez", path, "org.bluez.Mock", member, arguments)
    }

    func json(_ member: String, _ arguments: [DBusValue] = []) async throws -> Any {
        let text = try #require(try await mock(member, arguments).first?.stringValue)
        return try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    func addAdapter(_ name: String) async throws { try await mock("AddLEAdapter", [.string(name)]) }

    func removeAdapter(_ name: String) async throws { try await mock("RemoveAdapter", [.string(name)]) }

    /// One advertising report from `address` carrying `manufacturerData` (company id first, little-endian).
    func report(_ address: String, _ manufacturerData: [UInt8], rssi: Int16, adapter: String = "hci0") async throws {
        try await mock("SetBeacon", [.string(adapter), .string(address), .string(hex(manufacturerData)), .int16(rssi)])
    }

    func emit(_ address: String, _ manufacturerData: [UInt8], count: Int, perSecond: Int) async throws {
        try await mock("EmitBeacons", [.string("hci0"), .string(address), .string(hex(manufacturerData)),
                                       .uint32(UInt32(count)), .uint32(UInt32(perSecond))])
    }

    func emitterStatus() async throws -> (sent: Int, seconds: Double) {
        let status = try #require(try await json("EmitterStatus") as? [String: Any])
        return ((status["sent"] as? Int) ?? 0, (status["seconds"] as? Double) ?? 0)
    }

    /// Register/unregister calls in order, with the properties the mock read back from the caller.
    func advertisingLog() async throws -> [[String: Any]] {
        try #require(try await json("AdvertisingLog") as? [[String: Any]])
    }

    func discoveryFilter(_ adapter: String = "hci0") async throws -> (filter: [String: Any]?, discovering: Bool) {
        let state = try #require(try await json("DiscoveryFilter", [.string(adapter)]) as? [String: Any])
        return (state["filter"] as? [String: Any], (state["discovering"] as? Bool) ?? false)
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Polls `condition` every 20 ms until it holds or `seconds` pass.
    func wait(seconds: Double = 15, _ condition: () async throws -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if (try? await condition()) == true { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return (try? await condition()) == true
    }
}
