#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
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
                throw ValidationError("admin backup is for sqlite: databases; back up PostgreSQL with pg_dump or a base backup")
            }
            guard !to.isEmpty else { throw ValidationError("--to needs a file path") }
        }

        func run() async throws {
            try await options.withStore { store in
                guard let sqlite = store as? SQLiteStore else { throw StoreError.invalid("admin backup needs a sqlite: database") }
                // The copy holds ride keys, notes and code hashes: the owner's alone, whatever
                // the shell's umask (022 made it 0644). Files made from here on are 0600, and
                // the finished copy is set to exactly that.
                let previous = umask(0o077)
                defer { umask(previous) }
                let summary = try await sqlite.backup(to: to)
                guard chmod(to, 0o600) == 0 else { throw StoreError.invalid("cannot make \(to) private (chmod 600 failed)") }
                printToStandardError("backed up \(summary.accounts) accounts, \(summary.rideRequests) ride requests, "
                                     + "\(summary.rides) rides and \(summary.events) events (\(summary.bytes) bytes); integrity check ok")
                print(to)
            }
        }
    }
}
