#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import Phrasebook
import RideStore

extension Admin {
    /// Online backup of the one-box database while `serve` keeps running (deploy/README.md has
    /// the restore procedure). PostgreSQL has its own tools (pg_dump, base backups).
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a SQLite database to a new file while the server runs (SQLite online backup API), then check the copy.")

        @Option(help: "The new backup file; an existing file is never overwritten.")
        var to: String
        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            guard options.database.hasPrefix("sqlite:") else {
                throw ValidationError(PersonalBook.current(.adminBackupSQLiteOnly))
            }
            guard !to.isEmpty else { throw ValidationError(PersonalBook.current(.adminBackupNeedsPath)) }
        }

        func run() async throws {
            try await options.withStore { store in
                guard let sqlite = store as? SQLiteStore else { throw ValidationError(PersonalBook.current(.adminBackupSQLiteOnly)) }
                // The copy holds ride keys, notes and code hashes: the owner's alone, whatever
                // the shell's umask (022 made it 0644). Files made from here on are 0600, and
                // the finished copy is set to exactly that.
                let previous = umask(0o077)
                defer { umask(previous) }
                let summary = try await sqlite.backup(to: to)
                guard chmod(to, 0o600) == 0 else { throw ValidationError(PersonalBook.current(.adminBackupNotPrivate, ["path": .text(to)])) }
                // Counts as digits, as before: scripts and the backup test read them.
                printToStandardError(PersonalBook.current(.adminBackedUp, [
                    "accounts": .text("\(summary.accounts)"), "requests": .text("\(summary.rideRequests)"), "rides": .text("\(summary.rides)"),
                    "events": .text("\(summary.events)"), "bytes": .text("\(summary.bytes)"),
                ]))
                print(to)
            }
        }
    }
}
