import Foundation
import GRDB

/// What a backup holds, so an operator can see at once that it is not empty or truncated.
public struct BackupSummary: Sendable, Equatable {
    public var accounts: Int
    public var rideRequests: Int
    public var rides: Int
    public var events: Int
    public var bytes: Int
}

extension SQLiteStore {
    /// Copies the live database to `path` with SQLite's online backup API while the server keeps
    /// writing. All pages are copied in one step inside one read transaction, so the copy is a
    /// consistent snapshot (in WAL mode a reader never blocks the writer, and a single step
    /// cannot be restarted by a concurrent write). The copy is written beside `path` and renamed
    /// only after `PRAGMA integrity_check` passes and the copy is fsync'd, so neither a crash nor a
    /// power cut leaves a half backup under the final name. Refuses to overwrite an existing file.
    public func backup(to path: String) async throws -> BackupSummary {
        let fileManager = FileManager.default
        guard !fileManager.fileExists(atPath: path) else {
            throw StoreError.invalid("\(path) already exists; back up to a new file")
        }
        let partial = path + ".partial"
        try? fileManager.removeItem(atPath: partial)
        do {
            let destination = try DatabaseQueue(path: partial)
            try pool.backup(to: destination)
            let summary = try await destination.read { db -> BackupSummary in
                let check = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard check == ["ok"] else {
                    throw StoreError.invalid("the backup failed its integrity check: \(check.prefix(3).joined(separator: "; "))")
                }
                func count(_ table: String) throws -> Int { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
                return BackupSummary(accounts: try count("account"), rideRequests: try count("rideRequest"),
                                     rides: try count("ride"), events: try count("rideEvent"), bytes: 0)
            }
            try destination.close()
            // On disk before it takes the final name, and the name itself durable afterwards:
            // after a power cut the backup is either absent or whole.
            try Self.syncFile(partial)
            try Self.syncDirectory(containing: partial)
            try fileManager.moveItem(atPath: partial, toPath: path)
            try Self.syncDirectory(containing: path)
            var result = summary
            result.bytes = (try? fileManager.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return result
        } catch {
            try? fileManager.removeItem(atPath: partial)
            throw Self.mapped(error)
        }
    }
}
