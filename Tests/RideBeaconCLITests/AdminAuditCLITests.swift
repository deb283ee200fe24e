import Foundation
import RideBeaconTesting
import Testing

/// The admin CLI leaves one audit line (JSON) per action in its audit log, not on the terminal
/// (issue 25); never the token secret. `RIDEBEACON_AUDIT_LOG=-` puts them on stderr.
@Suite("ridebeacon admin audit trail", .tags(.process), .timeLimit(.minutes(2)))
struct AdminAuditCLITests {
    @Test func adminActionsWriteAuditLinesToTheLogWithoutSecrets() async throws {
        let database = try temporaryDatabase()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)/audit.log")
        var environment = ProcessInfo.processInfo.environment
        environment["RIDEBEACON_AUDIT_LOG"] = log.path
        let created = try await CLI.run(["admin", "create-account", "--role", "passenger", "--name", "Ana", "--database", database], environment: environment)
        #expect(created.status == 0)
        let token = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!created.stderr.contains(#""audit""#), "no audit line on the terminal: \(created.stderr)")
        var lines = try String(contentsOf: log, encoding: .utf8)
        #expect(lines.contains(#""audit":"admin""#) && lines.contains(#""action":"account.create""#))
        #expect(lines.contains(#""via":"cli""#) && lines.contains(#""actor":"operator:"#))
        #expect(!lines.contains(token) && !created.stderr.contains(token))
        let purged = try await CLI.run(["admin", "purge-locations", "--older-than-days", "1", "--database", database], environment: environment)
        #expect(purged.status == 0 && purged.stdout == "0\n" && !purged.stderr.contains(#""audit""#))
        lines = try String(contentsOf: log, encoding: .utf8)
        #expect(lines.split(separator: "\n").count == 2 && lines.contains(#""action":"locations.purge""#))

        environment["RIDEBEACON_AUDIT_LOG"] = "-"
        let journal = try await CLI.run(["admin", "purge-locations", "--older-than-days", "1", "--database", database], environment: environment)
        #expect(journal.status == 0 && journal.stderr.contains(#""action":"locations.purge""#))
    }
}

/// `serve` warns about a database file others can read (issue 13, item 6). The file here is
/// not a database, so serve stops right after the warning instead of running.
@Suite("ridebeacon serve file-mode warning", .tags(.process), .timeLimit(.minutes(1)))
struct ServeFileModeCLITests {
    @Test func serveWarnsWhenTheDatabaseIsReadableByOthers() async throws {
        let database = try temporaryDatabase()
        let path = String(database.dropFirst("sqlite:".count))
        try Data("not a database, but readable by everyone".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let run = try await CLI.run(["serve", "--port", "0", "--database", database])
        #expect(run.status != 0)
        #expect(run.stderr.contains("database file is readable by other users") && run.stderr.contains(#""mode":"644""#))
    }
}
