import Foundation
import GRDB
@testable import RideStore
import Testing

/// SQLite writes share commits; each keeps its own all-or-nothing, and none is answered before
/// its group is on disk.
@Suite("Group commit")
struct GroupCommitTests {
    struct Refused: Error, Equatable { var n: Int }

    /// A refusing commit hook: every transaction whose commit it sees fails.
    // @unchecked: no state; GRDB's TransactionObserver is not Sendable, and the pool needs one.
    final class RefuseCommits: TransactionObserver, @unchecked Sendable {
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseWillCommit() throws { throw Refused(n: -1) }
        func databaseDidCommit(_ db: Database) {}
        func databaseDidRollback(_ db: Database) {}
    }

    static func pool() throws -> (DatabasePool, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("group-commit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
        try pool.write { db in try db.execute(sql: "CREATE TABLE item (n INTEGER PRIMARY KEY, note TEXT)") }
        return (pool, directory)
    }

    /// Holds the writer inside a first group until `count` writes wait, so they form one group.
    static func holdWriter(_ writes: GroupCommit, until count: Int) -> Task<Void, any Error> {
        let release = DispatchSemaphore(value: 0)
        let holder = Task { try await writes.write { _ in release.wait() } }
        Task {
            while writes.waiting < count { try await Task.sleep(for: .milliseconds(5)) }
            release.signal()
        }
        return holder
    }

    @Test func aFailingWriteIsRolledBackAloneAndTheRestOfItsGroupLands() async throws {
        let (pool, directory) = try Self.pool()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writes = GroupCommit(pool: pool)
        let holder = Self.holdWriter(writes, until: 20)
        try await Task.sleep(for: .milliseconds(20))
        let results = await withTaskGroup(of: (Int, Result<Int, Refused>).self) { group in
            for n in 1...20 {
                group.addTask {
                    do {
                        let stored = try await writes.write { db in
                            try db.execute(sql: "INSERT INTO item (n, note) VALUES (?, 'first')", arguments: [n])
                            // Odd writes fail after writing: their row must not survive.
                            if n % 2 == 1 { throw Refused(n: n) }
                            try db.execute(sql: "UPDATE item SET note = 'second' WHERE n = ?", arguments: [n])
                            return n
                        }
                        return (n, .success(stored))
                    } catch let refused as Refused {
                        return (n, .failure(refused))
                    } catch {
                        Issue.record("unexpected \(error)")
                        return (n, .failure(Refused(n: 0)))
                    }
                }
            }
            return await group.reduce(into: [Int: Result<Int, Refused>]()) { $0[$1.0] = $1.1 }
        }
        try await holder.value
        for n in 1...20 {
            #expect(results[n] == (n % 2 == 1 ? .failure(Refused(n: n)) : .success(n)), "write \(n) gets its own answer")
        }
        let rows = try pool.read { db in try Row.fetchAll(db, sql: "SELECT n, note FROM item ORDER BY n") }
        #expect(rows.map { $0["n"] as Int } == Array(stride(from: 2, through: 20, by: 2)))
        #expect(rows.allSatisfy { $0["note"] == "second" }, "each surviving write is whole")
    }

    @Test func whenTheGroupsCommitFailsNoWriteIsAnsweredDoneOrStored() async throws {
        let (pool, directory) = try Self.pool()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writes = GroupCommit(pool: pool)
        let holder = Self.holdWriter(writes, until: 5)
        try await Task.sleep(for: .milliseconds(20))
        let refuse = RefuseCommits()
        let outcomes = await withTaskGroup(of: (any Error)?.self) { group in
            for n in 1...5 {
                group.addTask {
                    do {
                        try await writes.write { db in
                            // The first write of the group arms the hook: the group's commit fails.
                            if n == 1 { db.add(transactionObserver: refuse, extent: .nextTransaction) }
                            try db.execute(sql: "INSERT INTO item (n) VALUES (?)", arguments: [n])
                        }
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: [(any Error)?]()) { $0.append($1) }
        }
        _ = try? await holder.value
        #expect(outcomes.count == 5)
        #expect(outcomes.allSatisfy { ($0 as? Refused) == Refused(n: -1) }, "every write of the group hears the commit failed")
        #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") } == 0)
        // The writer goes on: the next write commits.
        try await writes.write { db in try db.execute(sql: "INSERT INTO item (n) VALUES (99)") }
        #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") } == 1)
    }
}
