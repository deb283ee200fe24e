import Foundation
import RideBeaconTesting
import Testing

/// Issue 24, finding 10: secrets never on a command line, where every user sees them in ps.
@Suite("Secrets off the command line", .tags(.process), .timeLimit(.minutes(2)))
struct SecretsOffTheCommandLineCLITests {
    /// The units hand the database URL (it may hold the PostgreSQL password) over through the
    /// environment file, never by expanding it into ExecStart.
    @Test func theUnitsReadTheDatabaseURLFromTheirEnvironmentFile() throws {
        let directory = CLI.repository.appendingPathComponent("deploy/systemd")
        for unit in ["ridebeacon.service", "ridebeacon-backup.service"] {
            let text = try String(contentsOf: directory.appendingPathComponent(unit), encoding: .utf8)
            let execs = text.split(separator: "\n").filter { $0.hasPrefix("ExecStart") }
            #expect(!execs.isEmpty && execs.allSatisfy { !$0.contains("RIDEBEACON_DATABASE") && !$0.contains("--database") }, "\(unit): \(execs)")
            #expect(text.contains("EnvironmentFile=/etc/ridebeacon/ridebeacon.env"), "\(unit)")
        }
    }

    /// Commands find the database in RIDEBEACON_DATABASE when --database is not given.
    @Test func commandsTakeTheDatabaseFromTheEnvironment() async throws {
        let directory = try CLI.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("env.sqlite").path
        var environment = ProcessInfo.processInfo.environment
        environment["RIDEBEACON_DATABASE"] = database
        let created = try await CLI.run(["admin", "create-account", "--role", "passenger", "--name", "Eve"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let listed = try await CLI.run(["admin", "list-accounts", "--database", database])
        #expect(listed.stdout.contains("Eve"), "created in the database the variable names: \(listed.stdout)")
    }

    /// The sign-in key: a 0600 file beside the database, rotated by a command; a code issued
    /// before the rotation no longer matches.
    @Test func inviteUsesTheKeyFileAndRotationReplacesIt() async throws {
        let directory = try CLI.temporaryDirectory()
        let path = directory.appendingPathComponent("rides.sqlite").path
        let database = "sqlite:" + path
        let created = try await CLI.run(["admin", "create-account", "--role", "passenger", "--name", "Ana", "--database", database])
        let token = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(created.status == 0 && !token.isEmpty)
        let accounts = try await CLI.run(["admin", "list-accounts", "--database", database]).stdout
        let id = try #require(accounts.split(separator: "\n").first { $0.contains("Ana") }?.split(separator: "\t").first.map(String.init))
        #expect(try await CLI.run(["admin", "invite", id, "--database", database]).status == 0)
        let keyFile = path + ".sign-in-key"
        let before = try String(contentsOfFile: keyFile, encoding: .utf8)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int)
        #expect(mode == 0o600 && before.trimmingCharacters(in: .whitespacesAndNewlines).count == 64)
        let rotated = try await CLI.run(["admin", "rotate-sign-in-key", "--database", database])
        #expect(rotated.status == 0 && rotated.stderr.contains("codes issued before no longer work"), "\(rotated.stderr)")
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) != before)
    }
}
