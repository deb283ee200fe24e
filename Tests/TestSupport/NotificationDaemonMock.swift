import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private session bus (`dbus-daemon --session` on a socket of its own) with python3-dbusmock's
/// `notification_daemon` template owning org.freedesktop.Notifications, logging every call to a
/// file: what a desktop would show, readable without our own D-Bus decoder.
public final class NotificationDaemonMock: @unchecked Sendable {
    // @unchecked: `processes` is set in init and cleared by `stop()`, both called by the one
    // test that owns the mock; the rest is immutable.
    static let python = "/usr/bin/python3"
    public static let available = FileManager.default.isExecutableFile(atPath: PrivateBus.daemon)
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/notification_daemon.py")
    /// RIDEBEACON_REQUIRE_PEERS (`make test`, CI) makes a missing mock a failure, not a skip, as
    /// for Bumble: the notification escaping test is a security check.
    public static let required = ProcessInfo.processInfo.environment["RIDEBEACON_REQUIRE_PEERS"].map { !$0.isEmpty } ?? false
    /// For `.enabled(if:)` and optional use: run when the mock is present, or when it is required (and then fail).
    public static let shouldRun = available || required

    private let bus: PrivateBus
    public var directory: URL { bus.directory }
    /// The value for `DBUS_SESSION_BUS_ADDRESS`.
    public var address: String { bus.address }
    private var processes: [Process] = []
    private var log: URL { directory.appendingPathComponent("notifications.log") }

    public init() async throws {
        try FastLane.refuse("a private dbus-daemon", tag: "process")
        guard Self.available else { throw FixtureError("dbus-daemon or python3-dbusmock is missing (`make deps` installs them)") }
        bus = PrivateBus(directory: try Repository.temporaryDirectory("ridebeacon-session-bus"), variable: "DBUS_SESSION_BUS_ADDRESS")
        processes.append(try bus.launchDaemon(log: "daemon.out"))
        // Generous bounds: a loaded 2-core CI box can be slow to start python.
        try await waitFor("the session bus socket", seconds: 60) { FileManager.default.fileExists(atPath: self.bus.socketPath) }
        processes.append(try bus.launch(Self.python, ["-m", "dbusmock", "--session", "-t", "notification_daemon", "-l", log.path], log: "mock.out"))
        try await waitFor("the notification daemon mock", seconds: 60) { self.owned() }
    }

    deinit { stop() }

    public func stop() {
        // SIGKILL: children inherit the test runner's blocked signals, so SIGTERM may never land.
        for process in processes.reversed() { PrivateBus.kill(process) }
        processes.removeAll()
    }

    /// Every Notify call so far: (summary, body), oldest first.
    public func notifications() -> [(summary: String, body: String)] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            // `TIME Notify "app" ID "icon" "summary" "body" [] {...} -1`
            guard line.contains(" Notify ") else { return nil }
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            guard quoted.count >= 4 else { return nil }
            return (quoted[2], quoted[3])
        }
    }

    private func owned() -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        probe.arguments = ["--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                           "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications"]
        let output = Pipe()
        probe.standardOutput = output
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        ChildExit.waitBlocking(for: probe, seconds: 10)
        let reply = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return reply.contains("boolean true")
    }

    private func waitFor(_ what: String, seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw FixtureError("\(what) did not start within \(Int(seconds)) s (logs in \(directory.path))") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
