import Foundation
import Logging
import NIOCore
import NIOPosix
import RideBeaconTesting
import Testing
@testable import RideStore

/// The store deadline on a machine whose Swift concurrency threads are all busy (issue 14: a
/// 500 ms PostgreSQL deadline took 32 s during a loaded `make test`).
@Suite struct StoreDeadlineTests {
    struct TimedOut: Error {}

    /// Every cooperative thread is held by blocking work that lets go only when the deadline
    /// fires (or, if it never does, after a fallback that fails the test). A deadline timer
    /// that needs a cooperative thread to fire cannot fire here.
    @Test func theDeadlineFiresWhileTheCooperativePoolIsSaturated() async throws {
        let gate = SaturationGate()
        let width = ProcessInfo.processInfo.activeProcessorCount
        let blockers = (0..<width).map { _ in
            Task.detached { gate.holdUntilOpened(fallback: 60) }
        }
        await #expect(throws: TimedOut.self) {
            try await withDeadline(.seconds(1), timedOut: {
                gate.open(byDeadline: true)
                return TimedOut()
            }) {
                // Stands in for a query on a connection that never answers.
                try await Task.sleep(for: .seconds(3600))
            }
        }
        for blocker in blockers { await blocker.value }
        #expect(gate.openedByDeadline, "the deadline fired only after the saturating work let go (60 s fallback): its timer needs a free cooperative thread")
    }

    /// `serve` runs its tasks on NIO's shared event loops (issue 39), so a task that blocks one
    /// (a stalled log write) must not hold the store's deadlines: every loop of the shared group
    /// is held here until the deadline fires. The wheel has a thread of its own.
    @Test func theDeadlineFiresWhileTheSharedEventLoopsAreBlocked() async throws {
        let gate = SaturationGate()
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        for loop in loops { loop.execute { gate.holdUntilOpened(fallback: 60) } }
        await #expect(throws: TimedOut.self) {
            try await withDeadline(.seconds(1), timedOut: {
                gate.open(byDeadline: true)
                return TimedOut()
            }) {
                try await Task.sleep(for: .seconds(3600))
            }
        }
        #expect(gate.openedByDeadline, "the deadline fired only after the blocked event loops let go (60 s fallback)")
    }

    /// The outage path end to end: nothing listens on port 1 and PostgresNIO's pool would
    /// queue the request for a minute. No bound on the elapsed time: the test above shows the
    /// deadline fires on a saturated machine, and a loaded machine may delay the answer.
    @Test func postgresOutageIsUnavailableByTheStoreDeadline() async throws {
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let store = try PostgresStore(url: "postgres://nobody@127.0.0.1:1/none", operationTimeout: .milliseconds(500), logger: quiet)
        await #expect {
            try await store.ping()
        } throws: { error in
            if case StoreError.unavailable = error { true } else { false }
        }
        await store.close()
    }
}

/// Threads wait here, outside Swift concurrency's view (a blocking wait on purpose).
// @unchecked: its state is read and written only inside `condition` (NSCondition, because the
// waiters block threads on purpose; a Mutex cannot wait).
final class SaturationGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var opened = false
    private var byDeadline = false

    var openedByDeadline: Bool { condition.withLock { byDeadline } }

    func open(byDeadline: Bool) {
        condition.withLock {
            if !opened { self.byDeadline = byDeadline }
            opened = true
            condition.broadcast()
        }
    }

    func holdUntilOpened(fallback seconds: TimeInterval) {
        let giveUp = Date(timeIntervalSinceNow: seconds)
        condition.withLock {
            while !opened {
                if !condition.wait(until: giveUp) { break }
            }
        }
        open(byDeadline: false)
    }
}
