import Foundation
import RideStore
import RideBeaconTesting
import Testing

/// `ridebeacon admin backup`: what an operator sees (the copy under load, restored and
/// checked, is scripts/reliability/durability.py's).
@Suite("ridebeacon admin backup", .tags(.process), .timeLimit(.minutes(2)))
struct AdminBackupCLITests {
    @Test func backsUpACheckedCopyAndNeverOverwrites() async throws {
        let directory = try CLI.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("rides.sqlite").path
        let target = directory.appendingPathComponent("backup.sqlite").path
        #expect(try await CLI.run(["admin", "create-account", "--role", "driver", "--name", "Ben", "--vehicle", "van", "--database", database]).status == 0)

        let backup = try await CLI.run(["admin", "backup", "--database", database, "--to", target])
        #expect(backup.status == 0 && backup.stdout == target + "\n")
        #expect(backup.stderr.contains("backed up 1 accounts") && backup.stderr.contains("integrity check ok"))
        let copy = try await StoreLocation.open("sqlite:" + target, operationTimeout: StoreKind.testOperationTimeout)
        #expect(try await copy.accounts().map(\.displayName) == ["Ben"])
        await copy.close()
        #expect(!FileManager.default.fileExists(atPath: target + ".partial"))

        let again = try await CLI.run(["admin", "backup", "--database", database, "--to", target])
        #expect(again.status != 0 && again.stderr.contains("already exists; back up to a new file"))
    }

    /// The copy holds ride keys, notes and code hashes: 0600 even under a shell's umask 022 (it
    /// was 0644, issue 24).
    @Test func theBackupIsTheOwnersAloneUnderAnOpenUmask() async throws {
        let directory = try CLI.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("rides.sqlite").path
        let target = directory.appendingPathComponent("private.sqlite").path
        #expect(try await CLI.run(["admin", "create-account", "--role", "passenger", "--name", "Ana", "--database", database]).status == 0)
        let previous = umask(0o022)
        defer { umask(previous) }
        let backup = try await CLI.run(["admin", "backup", "--database", database, "--to", target])
        #expect(backup.status == 0, "\(backup.stderr)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "mode \(String(mode, radix: 8))")
    }

    @Test func refusesPostgreSQLAndSaysWhatToUse() async throws {
        let result = try await CLI.run(["admin", "backup", "--database", "postgres://u@127.0.0.1:1/x", "--to", "/tmp/never.sqlite"])
        #expect(result.status != 0 && result.stderr.contains("Admin backup is for sqlite: databases; back up PostgreSQL with pg_dump"))
    }
}
