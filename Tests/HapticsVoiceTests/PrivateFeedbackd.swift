import Foundation
import RideBeaconTesting

/// A private session bus (dbus-daemon) with Debian's real feedbackd on it, started with
/// RideBeacon's theme (deploy/feedbackd/ridebeacon.json, `FEEDBACK_THEME`) and its debug log
/// kept, so a test reads what the daemon itself received. No vibration motor is needed:
/// feedbackd starts without one ("No vibra capable device found"), answers every
/// TriggerFeedback with an id and ends the feedbacks at once (`FeedbackEnded`).
final class PrivateFeedbackd {
    static let daemon = "/usr/libexec/feedbackd"
    static var theme: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/feedbackd/ridebeacon.json").path
    }

    let directory: String
    let address: String
    let logPath: String
    private let bus: Process
    private var feedbackd: Process?

    init(startDaemon: Bool = true) throws {
        directory = NSTemporaryDirectory() + "rb-feedbackd-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        logPath = directory + "/feedbackd.log"
        // No service directories: nothing but the daemon started here answers for feedbackd.
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>session</type><listen>unix:path=\(directory)/bus</listen>
            <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
            </busconfig>
            """
        try config.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--config-file=\(directory)/bus.conf", "--nofork"]
        bus.standardOutput = FileHandle.nullDevice
        try bus.run()
        address = "unix:path=\(directory)/bus"
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: directory + "/bus") { Thread.sleep(forTimeInterval: 0.05) }
        if startDaemon { try start() }
    }

    private func start() throws {
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.daemon)
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["FEEDBACK_THEME"] = Self.theme
        environment["G_MESSAGES_DEBUG"] = "all"
        // Its profile setting stays in memory, not in the user's dconf database.
        environment["GSETTINGS_BACKEND"] = "memory"
        process.environment = environment
        let log = FileHandle(forWritingAtPath: logPath)
        process.standardError = log
        process.standardOutput = log
        try process.run()
        feedbackd = process
        for _ in 0..<100 where !log_.contains("was acquired") { Thread.sleep(forTimeInterval: 0.05) }
    }

    private var log_: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The events feedbackd logged receiving from `appID`, in order.
    func events(from appID: String) -> [String] {
        log_.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "Event '"), line.contains("' for '\(appID)'") else { return nil }
            let rest = line[range.upperBound...]
            return rest.firstIndex(of: "'").map { String(rest[..<$0]) }
        }
    }

    /// Events feedbackd said it has no feedback for (not in the theme).
    var unknownEvents: [String] {
        log_.split(separator: "\n").compactMap { line in
            line.range(of: "No feedback for event ").map { String(line[$0.upperBound...]) }
        }
    }

    var startedWithoutVibra: Bool { log_.contains("No vibra capable device found") }

    func stop() {
        // SIGKILL: dbus-daemon started from a test process does not always leave on SIGTERM.
        for process in [feedbackd, bus].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            ChildExit.waitBlocking(for: process, seconds: 10)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
