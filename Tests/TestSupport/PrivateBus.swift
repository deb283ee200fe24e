import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` on a socket of its own, in `directory`, and the processes started
/// on it: the one launcher behind the bluez mock (a private *system* bus), the notification
/// daemon mock (a private *session* bus) and any other D-Bus peer a test needs. Children get
/// the bus's address in `variable`; each one's stdout and stderr go to a log file beside the
/// socket, for the failure message.
///
/// ```swift
/// let bus = PrivateBus(directory: try Repository.temporaryDirectory("bus"), variable: "DBUS_SESSION_BUS_ADDRESS")
/// let daemon = try bus.launchDaemon()
/// let mock = try bus.launch("/usr/bin/python3", ["-m", "dbusmock", "--session", "-t", "notification_daemon"], log: "mock.out")
/// ```
public struct PrivateBus: Sendable {
    public static let daemon = "/usr/bin/dbus-daemon"

    public let directory: URL
    /// The bus's address, `unix:path=<directory>/bus`.
    public let address: String
    /// The environment variable children read the address from (`DBUS_SYSTEM_BUS_ADDRESS` or
    /// `DBUS_SESSION_BUS_ADDRESS`).
    public let variable: String

    public init(directory: URL, variable: String) {
        self.directory = directory
        self.variable = variable
        address = "unix:path=\(directory.path)/bus"
    }

    /// The daemon's socket; it exists once the daemon listens.
    public var socketPath: String { directory.appendingPathComponent("bus").path }

    /// Starts `dbus-daemon` on `address` (the `--session` policy lets anyone own any name,
    /// whichever bus it stands for).
    /// - Parameter activating: false leaves out the session bus's service directories, so a
    ///   service the test did not start (feedbackd, say) is missing, not started on demand.
    public func launchDaemon(log: String = "dbus-daemon.log", activating: Bool = true) throws -> Process {
        guard !activating else {
            return try launch(Self.daemon, ["--session", "--nofork", "--nopidfile", "--address=\(address)"], log: log)
        }
        let config = directory.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>session</type><listen>\(address)</listen>
            <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        return try launch(Self.daemon, ["--config-file=\(config.path)", "--nofork", "--nopidfile"], log: log)
    }

    /// Waits (up to 5 s) until the daemon's socket exists.
    public func waitUntilListening() {
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socketPath) { usleep(50_000) }
    }

    /// Starts `executable` with this bus in its environment (plus `environment`), its output
    /// appended to `log` in `directory`.
    public func launch(_ executable: String, _ arguments: [String], log: String,
                       environment extra: [String: String] = [:]) throws -> Process {
        try FastLane.refuse("starting \(URL(fileURLWithPath: executable).lastPathComponent) on a private bus", tag: "process")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = address
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let logURL = directory.appendingPathComponent(log)
        if !FileManager.default.fileExists(atPath: logURL.path),
           !FileManager.default.createFile(atPath: logURL.path, contents: nil) {
            throw FixtureError("cannot create the log \(logURL.path)")
        }
        let handle = try FileHandle(forWritingTo: logURL)
        try handle.seekToEnd()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
        return process
    }

    /// What `log` holds so far.
    public func log(_ name: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    /// SIGKILL and wait: children inherit the test runner's blocked signals, so SIGTERM may never land.
    public static func kill(_ process: Process) {
        guard process.isRunning else { return }
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
        ChildExit.waitBlocking(for: process, seconds: 10)
    }
}
