import Foundation
import RideBeaconTesting
import RideServer
import Testing
@testable import RideStore

/// A write that committed its event but stopped before sequencing it (a crash, a lost
/// connection) leaves the event staged. Since issue 28's profile the event hub sequences only on
/// its poll, not on every wake-up (a wake-up follows a sequencing run already): the poll alone
/// must still move the event and deliver it, with no write or wake-up after it.
@Suite("Event hub: stranded events", .timeLimit(.minutes(1)))
struct StrandedEventHubTests {
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func theHubsPollSequencesAndDeliversAStrandedEvent() async throws {
        let world = try await World.make(.postgres)
        let store = try #require(world.store as? PostgresStore)
        let request = try await store.createRideRequest(
            NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"), passengerID: world.passenger.id, idempotency: nil)
        let hub = EventHub(store: store, configuration: .testing, logger: .quiet)
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let listener = try await hub.subscribe(.all)
        // Staged and committed, never sequenced: no announcement, no NOTIFY.
        try await store.transaction { conn in
            try await store.appendEvent(conn, requestID: request.id, rideID: nil, state: .cancelled, actor: world.passenger.id,
                                        at: .storeNow, detail: nil)
        }
        var messages = listener.messages.makeAsyncIterator()
        var delivered: RideEvent?
        while delivered == nil, let message = await messages.next() {
            if case .event(let event, _) = message, event.requestID == request.id { delivered = event }
        }
        #expect(delivered?.state == .cancelled && delivered?.sequence == 2)
        #expect(try await store.events(after: 0, limit: 10).map(\.state) == [.requested, .cancelled])
        listener.end()
    }
}
