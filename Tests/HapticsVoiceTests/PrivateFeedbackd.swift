import Foundation
import TestSupport

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

    let bus: PrivateBus
    var address: String { bus.address }
    var logPath: String { bus.directory.appendingPathComponent("feedbackd.log").path }
    private let daemon: Process
    private var feedbackd: Process?

    init(startDaemon: Bool = true) throws {
        bus = PrivateBus(directory: try Repository.temporaryDirectory("rb-feedbackd"), variable: "DBUS_SESSION_BUS_ADDRESS")
        // No service directories: nothing but the daemon started here answers for feedbackd.
        daemon = try bus.launchDaemon(activating: false)
        bus.waitUntilListening()
        if startDaemon { try start() }
    }

    private func start() throws {
        // Its profile setting stays in memory, not in the user's dconf database.
        feedbackd = try bus.launch(Self.daemon, [], log: "feedbackd.log",
                                   environment: ["FEEDBACK_THEME": Self.theme, "G_MESSAGES_DEBUG": "all", "GSETTINGS_BACKEND": "memory"])
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
        for process in [feedbackd, daemon].compactMap({ $0 }) { PrivateBus.kill(process) }
        try? FileManager.default.removeItem(at: bus.directory)
    }
}
