import Foundation
import Logging

/// The audit trail of what admins do (SECURITY.md, "The admin actor"). An admin can mint a
/// token for any account and so act as anyone, which is why every such action leaves a record:
/// one JSON log line at notice level with `"audit":"admin"`, the action, who did it and to
/// what; never a token secret (only its id). The server writes it to its log (stderr, the
/// journal under systemd); the `admin` CLI writes it to its own stderr. Operators keep it by
/// shipping those lines somewhere admins cannot edit: the trail is only as tamper-proof as
/// where the log goes.
public enum AdminAudit {
    public enum Via: String, Sendable { case api, cli }
    /// The metadata key every audit line has (`JSONLogHandler` never drops such a line).
    public static let marker = "audit"

    public static func record(_ logger: Logger, action: String, actor: String, via: Via, details: [String: String] = [:]) {
        var metadata: Logger.Metadata = [
            marker: "admin", "action": .string(action), "actor": .string(actor), "via": .string(via.rawValue),
        ]
        for (key, value) in details { metadata[key] = .string(value) }
        logger.notice("admin action", metadata: metadata)
    }

    /// Who ran the `admin` CLI: the database file or URL is all it authenticates with, so the
    /// Unix user (the one behind sudo, if any) is the best name there is.
    public static var cliOperator: String {
        let environment = ProcessInfo.processInfo.environment
        let user = environment["SUDO_USER"] ?? environment["USER"] ?? environment["LOGNAME"] ?? "uid \(getuid())"
        return "operator:\(user)"
    }

    /// A logger that writes audit lines to stderr as JSON, for commands without a configured logging system.
    public static var cliLogger: Logger {
        Logger(label: "ridebeacon.audit") { JSONLogHandler(label: $0, level: .notice) }
    }
}
