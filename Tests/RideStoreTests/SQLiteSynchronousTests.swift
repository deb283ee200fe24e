import Foundation
import GRDB
@testable import RideStore
import Testing

/// Every commit of the SQLite store is fsync'd (`synchronous = FULL`, 2): GRDB sets its writer to
/// NORMAL (1) when it turns WAL on, after `prepareDatabase`, and the power-loss harness found
/// acknowledged writes lost to that (issue 29, RELIABILITY.md "Power loss").
@Suite("SQLite synchronous mode")
struct SQLiteSynchronousTests {
    static func temporaryPath() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("rides.sqlite").path
    }

    @Test
    func theConnectionThatCommitsWritesSyncsEveryCommit() async throws {
        let store = try SQLiteStore(path: try Self.temporaryPath())
        // Through the group commit: the connection every acknowledged write commits on.
        let mode = try await store.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(mode == 2)
        await store.close()
    }

    @Test
    func onlyTheNegativeControlMayAskForNormal() throws {
        #expect(try SQLiteStore.synchronousMode([:]) == "FULL")
        #expect(try SQLiteStore.synchronousMode(["RIDEBEACON_SQLITE_SYNCHRONOUS": "FULL"]) == "FULL")
        #expect(try SQLiteStore.synchronousMode(["RIDEBEACON_SQLITE_SYNCHRONOUS": "NORMAL"]) == "NORMAL")
        #expect(throws: StoreError.self) { try SQLiteStore.synchronousMode(["RIDEBEACON_SQLITE_SYNCHRONOUS": "OFF"]) }
    }
}
