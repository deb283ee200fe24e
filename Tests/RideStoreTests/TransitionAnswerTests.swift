import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 28: the PostgreSQL transitions became server-side functions; each refusal must still
/// be the same error, on both stores (the answers themselves are StoreContractTests').
@Suite("Transition answers and refusals, both stores")
struct TransitionAnswerTests {
    @Test(arguments: StoreKind.available)
    func refusalsNameTheSameReasonOnBothStores(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        // Accept: no such request, a cancelled one, one another driver took, a busy driver.
        await #expect(throws: StoreError.notFound("ride request nope")) {
            try await store.accept(requestID: "nope", driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        }
        let cancelled = try await cast.request(store)
        _ = try await store.cancelRideRequest(id: cancelled.id, by: cast.passenger.id, idempotency: nil)
        await #expect(throws: StoreError.illegalTransition(from: .cancelled, to: .accepted)) {
            try await store.accept(requestID: cancelled.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        }
        let taken = try await cast.request(store)
        let ride = try await store.accept(requestID: taken.id, driverID: cast.otherDriver.id, rideKey: sampleKey, idempotency: nil)
        await #expect(throws: StoreError.alreadyTaken(taken.id)) {
            try await store.accept(requestID: taken.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        }
        let second = try await cast.request(store)
        await #expect(throws: StoreError.busy(role: .driver, existingID: ride.id)) {
            try await store.accept(requestID: second.id, driverID: cast.otherDriver.id, rideKey: sampleKey, rule: .oneRideAtATime, idempotency: nil)
        }
        // The passenger holds an open request (`second`) and a ride: the ride is named.
        await #expect(throws: StoreError.busy(role: .passenger, existingID: ride.id)) {
            try await store.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"), passengerID: cast.passenger.id,
                                              rule: .oneRideAtATime, idempotency: nil)
        }
        // Moves: no such ride; an illegal move names the state the ride is in.
        await #expect(throws: StoreError.notFound("ride nope")) {
            try await store.transition(rideID: "nope", to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
        }
        await #expect(throws: StoreError.illegalTransition(from: .accepted, to: .completed)) {
            try await store.transition(rideID: ride.id, to: .completed, by: cast.otherDriver.id, detail: nil, idempotency: nil)
        }
        // Cancelling a request: none, accepted, already cancelled.
        await #expect(throws: StoreError.notFound("ride request nope")) {
            try await store.cancelRideRequest(id: "nope", by: cast.passenger.id, idempotency: nil)
        }
        await #expect(throws: StoreError.illegalTransition(from: .accepted, to: .cancelled)) {
            try await store.cancelRideRequest(id: taken.id, by: cast.passenger.id, idempotency: nil)
        }
        await #expect(throws: StoreError.illegalTransition(from: .cancelled, to: .cancelled)) {
            try await store.cancelRideRequest(id: cancelled.id, by: cast.passenger.id, idempotency: nil)
        }
        // Touch proofs: no such ride, a ride not arrived.
        var ghost = TouchProofStoreTests.proof(ride, .passenger)
        ghost.rideID = "nope"
        await #expect(throws: StoreError.notFound("ride nope")) { try await store.recordTouchProof(ghost, policy: .mutual, idempotency: nil) }
        await #expect(throws: StoreError.illegalTransition(from: .accepted, to: .confirmed)) {
            try await store.recordTouchProof(TouchProofStoreTests.proof(ride, .passenger), policy: .mutual, idempotency: nil)
        }
        // The locator: no such ride, a ride not arrived, and too soon after the last request.
        await #expect(throws: StoreError.notFound("ride nope")) {
            try await store.requestLocator(rideID: "nope", by: cast.passenger.id, at: Date(), minimumInterval: 5)
        }
        #expect(try await store.requestLocator(rideID: ride.id, by: cast.passenger.id, at: Date(), minimumInterval: 5) == .wrongState(.accepted))
        _ = try await store.transition(rideID: ride.id, to: .arrived, by: cast.otherDriver.id, detail: nil, idempotency: nil)
        let first = TouchProofStoreTests.base
        guard case .recorded(let event) = try await store.requestLocator(rideID: ride.id, by: cast.passenger.id, at: first, minimumInterval: 5) else {
            Issue.record("the first locator request was refused")
            return
        }
        #expect(event.kind == .locatorRequested && event.at == first && event.state == .arrived)
        let again = try await store.requestLocator(rideID: ride.id, by: cast.passenger.id, at: first.addingTimeInterval(2), minimumInterval: 5)
        guard case .tooSoon(let last, let retryAfter) = again else { Issue.record("not refused as too soon: \(again)"); return }
        #expect(abs(last.timeIntervalSince(first)) < 0.001 && abs(retryAfter - 3) < 0.001)
    }

    @Test(arguments: StoreKind.available)
    func aKeyUsedForAnotherWriteIsRefusedAndChangesNothing(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let key = IdempotencyScope(accountID: cast.driver.id, key: "one-key")
        let request = try await cast.request(store)
        let ride = try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: key)
        // The answer (on PostgreSQL the function's JSON) is the ride as read back.
        #expect(try await store.ride(id: ride.id) == ride)
        await #expect(throws: StoreError.idempotencyKeyReused("one-key")) {
            try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: key)
        }
        #expect(try await store.ride(id: ride.id)?.state == .accepted)
        // The same write again answers the first result, even after the ride moved on.
        let arrived = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
        #expect(try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: key) == ride)
        #expect(arrived.state == .arrived && arrived.stateChangedAt >= ride.stateChangedAt)
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])
    }

    /// Without the one-ride rule no booking lock is taken (PostgreSQL); a driver whose two
    /// accepts of one request race still gets the one ride from both, never `alreadyTaken`.
    @Test(arguments: StoreKind.available)
    func oneDriversRacingAcceptsBothAnswerHisRide(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        for _ in 0..<5 {
            let request = try await cast.request(store)
            async let first = store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
            async let second = store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
            let (a, b) = try await (first, second)
            #expect(a == b && a.requestID == request.id && a.state == .accepted)
            #expect(try await store.events(rideID: a.id, after: 0).map(\.state) == [.requested, .accepted])
        }
    }

    /// A ride note (one procedure on PostgreSQL since issue 28) refuses and records alike on
    /// both stores.
    @Test(arguments: StoreKind.available)
    func notesRefuseAndRecordAlikeOnBothStores(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        func note(_ rideID: String, _ kind: RideEventKind = .passengerMessage, requiresEarlier: RideEventKind? = nil) -> RideNote {
            RideNote(rideID: rideID, kind: kind, actorID: cast.driver.id, at: Date(), detail: "none", requiresEarlier: requiresEarlier)
        }
        await #expect(throws: StoreError.notFound("ride nope")) { try await store.recordRideNote(note("nope")) }
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        #expect(try await store.recordRideNote(note(ride.id)) == .wrongState(.accepted))
        _ = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
        #expect(try await store.recordRideNote(note(ride.id, .locatorAnswered, requiresEarlier: .locatorRequested)) == .nothingToAnswer)
        guard case .recorded(let event) = try await store.recordRideNote(note(ride.id)) else { Issue.record("not recorded"); return }
        #expect(event.kind == .passengerMessage && event.state == .arrived && event.detail == "none")
        #expect(try await store.events(rideID: ride.id, after: 0).last == event)
    }

    /// A database migrated before the functions existed gets them, and its rides move on.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func anUpgradedDatabaseGetsTheFunctions() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_fn_upgrade")
        let cast = try await Cast(opened)
        let request = try await cast.request(opened)
        let ride = try await opened.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        await opened.close()
        // As the database was before `transition-functions-1` and `-2`: no function, no
        // procedure, no record of either.
        for procedure in TransitionProcedures.names { try await TestPostgres.execute("DROP PROCEDURE \(procedure)", at: location) }
        for procedure in ["rb_sequence_events_3", "rb_record_note_3", "rb_request_locator_4", "rb_record_note_4", "rb_record_note_5"] {
            try await TestPostgres.execute("DROP PROCEDURE \(procedure)", at: location)
        }
        try await TestPostgres.execute("""
            DELETE FROM schema_migration WHERE name IN ('transition-functions-2', 'transition-functions-3', 'transition-functions-4',
                                                        'transition-functions-keyed-notes')
            """, at: location)
        let functions = ["rb_stage_event_1", "rb_json_time_1", "rb_ride_json_1", "rb_request_json_1", "rb_stored_result_1", "rb_store_result_1",
                         "rb_create_request_1", "rb_cancel_request_1", "rb_accept_1", "rb_move_ride_1", "rb_touch_proof_1",
                         "rb_request_locator_1", "rb_sequence_events_1"]
        for function in functions.reversed() { try await TestPostgres.execute("DROP FUNCTION \(function)", at: location) }
        try await TestPostgres.execute("DELETE FROM schema_migration WHERE name = 'transition-functions-1'", at: location)
        let store = try await StoreLocation.open(location, operationTimeout: StoreKind.testOperationTimeout)
        let arrived = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
        #expect(arrived.state == .arrived && arrived.id == ride.id)
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])
        // A message with its Idempotency-Key (`transition-functions-keyed-notes`), and its retry.
        let key = IdempotencyScope(accountID: cast.passenger.id, key: "upgraded-1")
        let message = RideNote(rideID: ride.id, kind: .passengerMessage, actorID: cast.passenger.id, at: Date(), detail: "By the door")
        let sent = try await store.recordRideNote(message, idempotency: key)
        #expect(try await store.recordRideNote(message, idempotency: key) == KeyedRideNoteRecording(sent.recording, isReplay: true))
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.kind) == [.stateChanged, .stateChanged, .stateChanged, .passengerMessage])
        await store.close()
    }

    /// Functions come only with migrations: a database whose functions are newer than this
    /// binary records a migration it does not know, and is refused like any newer schema.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func newerFunctionsAreRefusedLikeANewerSchema() async throws {
        let (store, location) = try await StoreKind.postgres.makeStore(prefix: "rb_fn_newer")
        await store.close()
        try await TestPostgres.execute("INSERT INTO schema_migration (name) VALUES ('transition-functions-5')", at: location)
        let error = await #expect(throws: SchemaTooNew.self) { try await StoreLocation.open(location, operationTimeout: StoreKind.testOperationTimeout) }
        #expect(error?.unknownMigrations == ["transition-functions-5"])
    }
}
