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
