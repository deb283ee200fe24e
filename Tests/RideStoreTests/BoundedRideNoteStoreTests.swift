import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 36, finding 4, in the store on both stores: a note's limits are checked in its
/// transaction (a concurrent burst of one capped kind writes exactly the cap), and the newest
/// event of some kinds is one indexed read (`latestEvent`), which the dispatcher board and the
/// passenger page use instead of reading whole histories.
@Suite("Store contract: bounded ride notes")
struct BoundedRideNoteStoreTests {
    static func arrivedRide(_ store: any Store) async throws -> (RideRecord, Cast) {
        let cast = try await Cast(store)
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        return (try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil), cast)
    }

    @Test(arguments: StoreKind.available)
    func aBurstOfACappedKindWritesExactlyTheCap(kind: StoreKind) async throws {
        let (store, _) = try await kind.makeStore()
        let (ride, cast) = try await Self.arrivedRide(store)
        let outcomes = try await withThrowingTaskGroup(of: RideNoteRecording.self) { group in
            for index in 0..<30 {
                var note = RideNote(rideID: ride.id, kind: .passengerMessage, actorID: cast.passenger.id, at: Date(), detail: "hello \(index)")
                note.perRideLimit = 7
                group.addTask { try await store.recordRideNote(note) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { if case .recorded = $0 { true } else { false } }.count == 7)
        #expect(outcomes.filter { $0 == .limitReached(7) }.count == 23)
        #expect(try await store.events(rideID: ride.id, after: 0).filter { $0.kind == .passengerMessage }.count == 7)
        await store.close()
    }

    @Test(arguments: StoreKind.available)
    func repeatsAnswersAndTheNewestOfSomeKinds(kind: StoreKind) async throws {
        let (store, _) = try await kind.makeStore()
        let (ride, cast) = try await Self.arrivedRide(store)
        func guide(_ kind: RideEventKind) async throws -> RideNoteRecording {
            var note = RideNote(rideID: ride.id, kind: kind, actorID: cast.passenger.id, at: Date(), detail: nil)
            note.unchangedAmong = [.guideStarted, .guideStopped]
            return try await store.recordRideNote(note)
        }
        #expect(try await store.latestEvent(rideID: ride.id, kinds: [.guideStarted, .guideStopped]) == nil)
        guard case .recorded = try await guide(.guideStarted) else { Issue.record("the first start is written"); return }
        #expect(try await guide(.guideStarted) == .unchanged)
        guard case .recorded(let stopped) = try await guide(.guideStopped) else { Issue.record("the stop is written"); return }
        #expect(try await store.latestEvent(rideID: ride.id, kinds: [.guideStarted, .guideStopped]) == stopped)
        #expect(try await store.latestEvent(rideID: ride.id, kinds: [.stateChanged])?.state == .arrived)

        var answer = RideNote(rideID: ride.id, kind: .locatorAnswered, actorID: cast.driver.id, at: Date(), detail: "horn",
                              requiresEarlier: .locatorRequested)
        answer.answersOnePerRequest = true
        #expect(try await store.recordRideNote(answer) == .nothingToAnswer)
        _ = try await store.requestLocator(rideID: ride.id, by: cast.passenger.id, at: Date(), minimumInterval: 0)
        guard case .recorded = try await store.recordRideNote(answer) else { Issue.record("the answer is written"); return }
        #expect(try await store.recordRideNote(answer) == .nothingToAnswer, "one answer per request")
        await store.close()
    }

    /// A stream's replay reads the history a page at a time: every page at most the limit, in
    /// order, and together the whole history.
    @Test(arguments: StoreKind.available)
    func theHistoryReadsInPages(kind: StoreKind) async throws {
        let (store, _) = try await kind.makeStore()
        let (ride, cast) = try await Self.arrivedRide(store)
        for index in 0..<5 {
            _ = try await store.recordRideNote(RideNote(rideID: ride.id, kind: .passengerMessage, actorID: cast.passenger.id, at: Date(),
                                                        detail: "m\(index)"))
        }
        let whole = try await store.events(rideID: ride.id, after: 0)
        var pages: [[RideEvent]] = []
        var after: Int64 = 0
        while true {
            let page = try await store.events(rideID: ride.id, after: after, limit: 3)
            if page.isEmpty { break }
            pages.append(page)
            after = page.last!.id
        }
        #expect(whole.count == 8 && pages.map(\.count) == [3, 3, 2])
        #expect(pages.flatMap { $0 } == whole)
        await store.close()
    }
}
