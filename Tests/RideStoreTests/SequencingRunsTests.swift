import Foundation
@testable import RideStore
import Synchronization
import Testing

/// PostgreSQL's sequencing runs, coalesced per server: every caller is served by a run that
/// started after it asked, and a crowd of callers costs a couple of runs, not one each.
@Suite("Sequencing runs")
struct SequencingRunsTests {
    final class Log: Sendable {
        /// A logical clock: each "asked" and each run's start takes the next tick.
        let ticks = Mutex(0)
        let runStarts = Mutex<[Int]>([])
        func tick() -> Int { ticks.withLock { $0 += 1; return $0 } }
    }

    @Test func everyCallerIsServedByARunThatStartedAfterItAsked() async throws {
        let runs = SequencingRuns()
        let log = Log()
        let body: @Sendable () async throws -> Void = {
            log.runStarts.withLock { $0.append(log.tick()) }
            try await Task.sleep(for: .milliseconds(30))
        }
        let served = await withTaskGroup(of: Bool.self) { group in
            for caller in 0..<100 {
                group.addTask {
                    if caller % 10 == 0 { try? await Task.sleep(for: .milliseconds(caller)) }
                    let asked = log.tick()
                    do { try await runs.runStartingAfterNow(body) } catch { return false }
                    let returned = log.tick()
                    // Some run started after this caller asked and before it was answered.
                    return log.runStarts.withLock { $0.contains { $0 > asked && $0 < returned } }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(served.count == 100 && served.allSatisfy { $0 })
        let count = log.runStarts.withLock { $0.count }
        #expect(count < 30, "100 callers share runs: \(count) runs")
    }

    @Test func aFailedRunFailsItsCallersAndTheNextRunGoesAhead() async throws {
        let runs = SequencingRuns()
        struct Broken: Error {}
        await #expect(throws: Broken.self) { try await runs.runStartingAfterNow { throw Broken() } }
        try await runs.runStartingAfterNow {}
    }
}
