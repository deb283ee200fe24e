import Foundation
import Testing

/// The admin CLI leaves one audit line (JSON, stderr) per action; never the token secret.
@Suite("ridebeacon admin audit trail", .timeLimit(.minutes(2)))
struct AdminAuditCLITests {
    @Test func adminActionsWriteAuditLinesWithoutSecrets() throws {
        let database = try temporaryDatabase()
        let created = try CLI.run(["admin", "create-account", "--role", "passenger", "--name", "Ana", "--database", database])
        #expect(created.status == 0)
        let token = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(created.stderr.contains(#""audit":"admin""#) && created.stderr.contains(#""action":"account.create""#))
        #expect(created.stderr.contains(#""via":"cli""#) && created.stderr.contains(#""actor":"operator:"#))
        #expect(!created.stderr.contains(token))
        let purged = try CLI.run(["admin", "purge-locations", "--older-than-days", "1", "--database", database])
        #expect(purged.status == 0 && purged.stdout == "0\n" && purged.stderr.contains(#""action":"locations.purge""#))
    }
}

/// `serve` warns about a database file others can read (issue 13, item 6). The file here is
/// not a database, so serve stops right after the warning instead of running.
@Suite("ridebeacon serve file-mode warning", .timeLimit(.minutes(1)))
struct ServeFileModeCLITests {
    @Test func serveWarnsWhenTheDatabaseIsReadableByOthers() throws {
        let database = try temporaryDatabase()
        let path = String(database.dropFirst("sqlite:".count))
        try Data("not a database, but readable by everyone".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let run = try CLI.run(["serve", "--port", "0", "--database", database])
        #expect(run.status != 0)
        #expect(run.stderr.contains("database file is readable by other users") && run.stderr.contains(#""mode":"644""#))
    }
}
