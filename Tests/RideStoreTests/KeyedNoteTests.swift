import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// A passenger's message with an Idempotency-Key (the leftover of issues 25/28): its answer is
/// stored with the note, so a retry whose answer was lost gets the first event back and the
/// driver hears the message once; the key with another message is refused. Both stores.
@Suite("Keyed ride notes, both stores")
struct KeyedNoteTests {
    static func message(_ rideID: String, by passenger: Account, _ text: String) -> RideNote {
        RideNote(rideID: rideID, kind: .passengerMessage, actorID: passenger.id, at: Date(), detail: text, states: [.accepted, .arrived])
    }

    static func messages(_ store: any Store, _ rideID: String) async throws -> [RideEvent] {
        try await store.events(rideID: rideID, after: 0).filter { $0.kind == .passengerMessage }
    }

    @Test(arguments: StoreKind.available)
    func aRetryAnswersTheFirstEventAndWritesNothing(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        let key = IdempotencyScope(accountID: cast.passenger.id, key: "message-1")
        let first = try await store.recordRideNote(Self.message(ride.id, by: cast.passenger, "By the main door"), idempotency: key)
        guard case .recorded(let event) = first.recording else { Issue.record("not recorded: \(first)"); return }
        #expect(!first.isReplay && event.detail == "By the main door" && event.state == .accepted)

        // The retry comes later (another `at`): the first event, nothing written.
        let again = try await store.recordRideNote(Self.message(ride.id, by: cast.passenger, "By the main door"), idempotency: key)
        #expect(again == KeyedRideNoteRecording(.recorded(event), isReplay: true))
        #expect(try await Self.messages(store, ride.id) == [event])

        // The key with other words, or the same words to another ride: refused, nothing written.
        await #expect(throws: StoreError.idempotencyKeyReused("message-1")) {
            try await store.recordRideNote(Self.message(ride.id, by: cast.passenger, "At the side door"), idempotency: key)
        }
        let other = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.otherDriver.id, rideKey: sampleKey,
                                           idempotency: nil)
        await #expect(throws: StoreError.idempotencyKeyReused("message-1")) {
            try await store.recordRideNote(Self.message(other.id, by: cast.passenger, "By the main door"), idempotency: key)
        }
        #expect(try await Self.messages(store, ride.id) == [event])
        #expect(try await Self.messages(store, other.id).isEmpty)

        // Once the ride has moved on the retry still gets its first answer; a new message is refused.
        _ = try await store.transition(rideID: ride.id, to: .cancelled, by: cast.passenger.id, detail: nil, idempotency: nil)
        #expect(try await store.recordRideNote(Self.message(ride.id, by: cast.passenger, "By the main door"), idempotency: key)
                == KeyedRideNoteRecording(.recorded(event), isReplay: true))
        let refusedKey = IdempotencyScope(accountID: cast.passenger.id, key: "message-2")
        #expect(try await store.recordRideNote(Self.message(ride.id, by: cast.passenger, "Hello?"), idempotency: refusedKey)
                == KeyedRideNoteRecording(.wrongState(.cancelled)))
        #expect(try await Self.messages(store, ride.id) == [event])
        // A refusal stored nothing: its key is free for the message to the other ride.
        let sent = try await store.recordRideNote(Self.message(other.id, by: cast.passenger, "Hello?"), idempotency: refusedKey)
        guard case .recorded(let otherEvent) = sent.recording else { Issue.record("not recorded: \(sent)"); return }
        #expect(!sent.isReplay && otherEvent.rideID == other.id)

        // Without a key every call is a message, as before.
        let unkeyed = Self.message(other.id, by: cast.passenger, "Hello?")
        _ = try await store.recordRideNote(unkeyed)
        _ = try await store.recordRideNote(unkeyed)
        #expect(try await Self.messages(store, other.id).count == 3)
    }

    /// PostgreSQL: the key's answer commits with the note or not at all. A deferred trigger
    /// makes the note's COMMIT fail: no answer, no event, and the key is free, so the retry
    /// sends the message (once).
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func aKeyedNoteWhoseCommitFailsLeavesItsKeyFree() async throws {
        let (store, location) = try await StoreKind.postgres.makeStore(prefix: "rb_note_refused")
        let cast = try await Cast(store)
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        try await TestPostgres.execute(
            "CREATE FUNCTION rb_test_refuse_note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$",
            at: location)
        try await TestPostgres.execute("""
            CREATE CONSTRAINT TRIGGER refuse_note AFTER INSERT ON ride_event_pending DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION rb_test_refuse_note()
            """, at: location)
        let key = IdempotencyScope(accountID: cast.passenger.id, key: "message-once")
        let note = Self.message(ride.id, by: cast.passenger, "By the main door")
        await #expect(throws: (any Error).self) { try await store.recordRideNote(note, idempotency: key) }
        try await TestPostgres.execute("DROP TRIGGER refuse_note ON ride_event_pending", at: location)
        #expect(try await Self.messages(store, ride.id).isEmpty)
        let sent = try await store.recordRideNote(note, idempotency: key)
        guard case .recorded(let event) = sent.recording else { Issue.record("not recorded: \(sent)"); return }
        #expect(!sent.isReplay, "nothing of the failed attempt was kept, its key's answer neither")
        #expect(try await Self.messages(store, ride.id) == [event])
        await store.close()
    }

    /// Two tries of one message at once (a client's retry while the first is still on its way):
    /// one event, and both answer it.
    @Test(arguments: StoreKind.available)
    func racingRetriesOfOneMessageWriteItOnce(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        for n in 0..<4 {
            let key = IdempotencyScope(accountID: cast.passenger.id, key: "race-\(n)")
            let note = Self.message(ride.id, by: cast.passenger, "Message \(n)")
            async let a = store.recordRideNote(note, idempotency: key)
            async let b = store.recordRideNote(note, idempotency: key)
            let (first, second) = try await (a, b)
            #expect(first.recording == second.recording && first.isReplay != second.isReplay)
        }
        #expect(try await Self.messages(store, ride.id).map(\.detail) == ["Message 0", "Message 1", "Message 2", "Message 3"])
    }
}
