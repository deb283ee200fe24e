import Foundation
import PostgresNIO
import RideBeaconTesting
import Synchronization
import Testing
@testable import RideStore

/// Event ids become visible in id order, so reading "after the last id seen" loses nothing,
/// even with many concurrent writers and no lock held by the writes themselves (issue 14).
@Suite("Event order")
struct EventOrderTests {
    /// A reader follows the history with `events(after:)` while writers race: what it
    /// collected is exactly the final history, each event once, in id order.
    @Test(arguments: StoreKind.available)
    func aFollowerMissesNothingUnderConcurrentWrites(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let writers = 16, ridesEach = 4
        let finished = FinishedFlag()
        let writing = Task {
            defer { finished.set() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<writers {
                    group.addTask {
                        for _ in 0..<ridesEach {
                            let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id,
                                                              rideKey: sampleKey, idempotency: nil)
                            _ = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var followed: [RideEvent] = []
        var done = false
        while !done {
            // Whether the writers had finished is read before the page: the last page read
            // after they finished sees everything.
            done = finished.isSet
            let page = try await store.events(after: followed.last?.id ?? 0, limit: 500)
            followed += page
            if page.isEmpty && !done { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await writing.value
        let history = try await store.events(after: 0, limit: 10_000)
        #expect(history.count == writers * ridesEach * 3)
        #expect(followed.map(\.id) == history.map(\.id))
        // Each request's events keep their order: requested, accepted, arrived.
        let byRequest = Dictionary(grouping: history, by: \.requestID)
        #expect(byRequest.count == writers * ridesEach)
        #expect(byRequest.values.allSatisfy { $0.map(\.state) == [.requested, .accepted, .arrived] && $0.map(\.sequence) == [1, 2, 3] })
    }

    /// A write that committed its event but never sequenced it (the server died in between)
    /// is sequenced by the next run, which any write makes, and every event hub on its poll.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func aStrandedEventIsSequencedByTheNextRun() async throws {
        let store = try #require(try await StoreKind.postgres.make() as? PostgresStore)
        let cast = try await Cast(store)
        let request = try await cast.request(store)
        try await store.transaction { conn in
            try await store.appendEvent(conn, requestID: request.id, rideID: nil, state: .cancelled, actor: cast.passenger.id, at: .storeNow, detail: nil)
        }
        #expect(try await store.events(after: 0, limit: 10).map(\.state) == [.requested])
        try await store.sequenceEvents()
        let events = try await store.events(after: 0, limit: 10)
        #expect(events.map(\.state) == [.requested, .cancelled] && events.map(\.sequence) == [1, 2])
    }
}

/// Set once, read from another task.
final class FinishedFlag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
