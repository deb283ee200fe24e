import Foundation
import PostgresNIO
import RideBeaconTesting
import Synchronization
import Testing
@testable import RideStore

/// Issue 39: the store's deadlines share one timer (`DeadlineWheel`) instead of an event-loop
/// timer each. Under load they must still fire: hundreds pending at once, while every
/// cooperative thread is held, each operation fails with its deadline's error. No bound on
/// elapsed time (a loaded machine may delay anything); only which error each one gets.
@Suite struct DeadlineWheelTests {
    struct TimedOut: Error {}

    @Test func everyPendingDeadlineFiresWhileThePoolIsSaturated() async throws {
        let wheel = DeadlineWheel(loop: PostgresClient.defaultEventLoopGroup.next(), tick: .milliseconds(10))
        // Operations that finish in time answer their own value and leave nothing behind.
        for n in 0..<50 {
            let answer = try await withDeadline(.seconds(30), wheel: wheel, timedOut: { TimedOut() }) { n }
            #expect(answer == n)
        }
        #expect(wheel.pendingCount == 0)

        let count = 300
        let gate = SaturationGate()
        let started = SharedCount()
        let fired = SharedCount()
        let outcomes = Task {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        do {
                            _ = try await withDeadline(.seconds(2), wheel: wheel, timedOut: {
                                if fired.add() == count { gate.open(byDeadline: true) }
                                return TimedOut()
                            }) {
                                started.add()
                                // Stands in for a query on a connection that never answers.
                                try await Task.sleep(for: .seconds(3600))
                            }
                            return false
                        } catch {
                            return error is TimedOut
                        }
                    }
                }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
        }
        // Every operation is pending before the pool is taken, so all that is left to run is the wheel.
        for _ in 0..<6000 where started.value < count || wheel.pendingCount < count {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(wheel.pendingCount == count)
        let blockers = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            Task.detached { gate.holdUntilOpened(fallback: 60) }
        }
        #expect(await outcomes.value == count, "some operation did not fail with its deadline's error")
        for blocker in blockers { await blocker.value }
        #expect(gate.openedByDeadline, "the deadlines fired only after the saturating work let go (60 s fallback)")
        #expect(fired.value == count)
        #expect(wheel.pendingCount == 0)
    }
}

/// A counter closures can share (an `Atomic` cannot be captured by one).
final class SharedCount: Sendable {
    private let count = Mutex(0)

    @discardableResult
    func add() -> Int { count.withLock { $0 += 1; return $0 } }

    var value: Int { count.withLock { $0 } }
}
