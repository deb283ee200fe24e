#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import RideStore
import Testing

/// The SQLite file and its -wal and -shm hold ride keys in plain text: owner-only whatever the
/// umask (issue 13, item 6). Serialized: the umask is process-wide.
@Suite("Database file modes", .serialized)
struct DatabaseFileModeTests {
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    static func temporaryPath() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("rides.sqlite").path
    }

    @Test
    func newDatabaseFilesAreOwnerOnlyUnderUmask022() async throws {
        let path = try Self.temporaryPath()
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try SQLiteStore(path: path)
        // A write makes sure the -wal and -shm exist while the pool is open.
        _ = try await store.createAccount(NewAccount(role: .passenger, displayName: "Ana"))
        for file in [path, path + "-wal", path + "-shm"] {
            let mode = try #require(Self.mode(file), "\(file) exists")
            #expect(mode == 0o600, "\(file) is \(String(mode, radix: 8))")
        }
        #expect(SQLiteStore.filesReadableByOthers(path: path).isEmpty)
        await store.close()
    }

    /// What `serve` warns about: an existing file someone made readable by others.
    @Test
    func existingFilesReadableByOthersAreReported() async throws {
        let path = try Self.temporaryPath()
        let store = try SQLiteStore(path: path)
        await store.close()
        chmod(path, 0o644)
        let reported = SQLiteStore.filesReadableByOthers(path: path)
        #expect(reported.map(\.path) == [path] && reported.first?.mode == "644")
        // Opening leaves an existing file's mode alone (the operator decides; serve warns).
        let reopened = try SQLiteStore(path: path)
        #expect(Self.mode(path) == 0o644)
        await reopened.close()
    }
}
