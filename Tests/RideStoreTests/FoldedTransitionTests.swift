import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 39: the server moves and accepts rides with `rb_move_ride_9` and `rb_accept_9` (and
/// requests with `rb_create_request_9`): the folded bodies (FoldedTransitions, `_8`: one PL/pgSQL
/// body each instead of nested calls) that also sequence their own event when they can
/// (SelfSequencingTransitions). They must answer as the procedures they replace
/// (`rb_move_ride_2`, `rb_accept_6`, still installed for older servers) in every outcome, store
/// the same bytes under a key, and take one CALL a move.
@Suite("Folded transition procedures")
struct FoldedTransitionTests {
    /// The server's statements name the self-sequencing procedures; the `_8` bodies call no
    /// other routine of ours (a nested `rb_…` call is the cost they exist to save), and the `_9`
    /// ones only the sequencing run, after the transition.
    @Test func theServerCallsTheFoldedProcedures() throws {
        #expect(TransitionSQL.MoveRide.sql.hasPrefix("CALL rb_move_ride_9("))
        #expect(TransitionSQL.Accept.sql.hasPrefix("CALL rb_accept_9("))
        #expect(TransitionSQL.CreateRequest.sql.hasPrefix("CALL rb_create_request_9("))
        for name in ["rb_move_ride", "rb_accept", "rb_create_request"] {
            let folded = try #require(FoldedTransitions.v8.first { $0.hasPrefix("CREATE PROCEDURE \(name)_8(") })
            #expect(folded.components(separatedBy: "rb_").count == 2, "\(name)_8 calls another rb_ routine")
            let sequencing = try #require(FoldedTransitions.v9.first { $0.hasPrefix("CREATE PROCEDURE \(name)_9(") })
            #expect(sequencing.components(separatedBy: "rb_").count == 3)
            #expect(sequencing.components(separatedBy: "PERFORM rb_sequence_events_1(p_channel)").count == 2)
            // The same body, then the try and the run before the one COMMIT.
            let tail = try #require(sequencing.components(separatedBy: "pg_try_advisory_xact_lock").last)
            #expect(tail.contains("rb_sequence_events_1") && tail.contains("COMMIT;") && !tail.contains("INSERT"))
            for body in [folded, sequencing] { #expect(body.components(separatedBy: "COMMIT;").count == 2) }
        }
    }

    /// A DO block that CALLs the old and the new (`_9`) procedure with the same arguments on the
    /// same rows (outcomes that write nothing) and raises unless both answer `expected`, alike
    /// in every OUT value, and the new one says it sequenced exactly when it answered 'ok' or
    /// 'replay' (nothing else holds this test database's sequencing lock; a touch proof's replay
    /// answers before the step: `sequenced` false).
    static func sameAnswer(old: String, new: String, _ arguments: String, expected: String,
                           sequenced: Bool? = nil) -> String {
        let sequenced = sequenced ?? ["ok", "replay"].contains(expected)
        return """
        DO $$ DECLARE o1 text; i1 text; r1 bytea; o2 text; i2 text; r2 bytea; s2 boolean; BEGIN
            CALL \(old)(\(arguments), o1, i1, r1);
            CALL \(new)(\(arguments), 'rb_test_events', o2, i2, r2, s2);
            IF o1 IS DISTINCT FROM '\(expected)' OR o2 IS DISTINCT FROM o1 OR i2 IS DISTINCT FROM i1 OR r2 IS DISTINCT FROM r1 THEN
                RAISE EXCEPTION 'old answered (%, %, %), new (%, %, %)', o1, i1, r1, o2, i2, r2;
            END IF;
            IF COALESCE(s2, false) <> \(sequenced) THEN RAISE EXCEPTION 'answered % and sequenced %', o2, s2; END IF;
        END $$
        """
    }

    /// Raises unless the key's stored answer is the bytes `rb_ride_json_1` (the builder the old
    /// procedures used) makes of the ride as it is now; `table` "ride_request" for a request and
    /// `rb_request_json_1`.
    static func storedAnswerIsTheOldBuilders(account: String, key: String, ride: String, table: String = "ride",
                                             builder: String = "rb_ride_json_1") -> String {
        """
        DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM idempotency i, \(table) r WHERE i.account_id = '\(account)' AND i.key = '\(key)' AND r.id = '\(ride)'
                           AND i.result = convert_to(\(builder)(r)::text, 'UTF8')) THEN
                RAISE EXCEPTION 'the stored answer is not %''s', '\(builder)';
            END IF;
        END $$
        """
    }

    /// A request's outcomes, old against new: a keyed request stores the old builder's bytes; its
    /// replay, a reused key, a busy passenger and no free code answer alike.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func aRequestAnswersAsBefore() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_folded_request")
        let store = try #require(opened as? PostgresStore)
        let cast = try await Cast(store)
        let key = IdempotencyScope(accountID: cast.passenger.id, key: "request-1")
        let request = try await store.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"),
                                                        passengerID: cast.passenger.id, rule: .oneRideAtATime, idempotency: key)
        try await TestPostgres.execute(Self.storedAnswerIsTheOldBuilders(account: cast.passenger.id, key: key.key, ride: request.id,
                                                                         table: "ride_request", builder: "rb_request_json_1"), at: location)
        let code = try #require(request.shortCode)
        let create = { (key: String, operation: String, oneAtATime: Bool, codes: String) in
            "'\(cast.passenger.id)', '\(key)', '\(operation)', 'request-\(UUID().uuidString)', '\(cast.passenger.id)', 'Ana', 'A', 'B', NULL, now(), "
                + "\(oneAtATime), ARRAY[\(codes)]"
        }
        let compare = { (arguments: String, expected: String) in
            try await TestPostgres.execute(Self.sameAnswer(old: "rb_create_request_2", new: "rb_create_request_9", arguments, expected: expected),
                                           at: location)
        }
        try await compare(create(key.key, "create-request", true, "'ZZZZ'"), "replay")
        try await compare(create(key.key, "cancel-request:\(request.id)", true, "'ZZZZ'"), "key-reused")
        try await compare(create("busy-1", "create-request", true, "'ZZZZ'"), "busy")
        try await compare(create("no-code-1", "create-request", false, "'\(code)'"), "no-code")
        // None of them wrote: the passenger's one open request, its one event.
        #expect(try await store.rideRequests(passengerID: cast.passenger.id, limit: 10, after: nil).map(\.id) == [request.id])
        #expect(try await store.events(after: 0, limit: 100).filter { $0.requestID == request.id }.count == 1)
        await store.close()
    }

    /// A keyed arrive is one CALL (its sequencing run inside it), its retry answers the first ride
    /// again and writes nothing, and both the stored bytes and the old procedure's replay of the
    /// same key are what they were before the fold.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func aKeyedMoveAndItsReplayAnswerAsBefore() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_folded_move")
        let store = try #require(opened as? PostgresStore)
        let cast = try await Cast(store)
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        let key = IdempotencyScope(accountID: cast.driver.id, key: "arrive-1")
        var arrived: RideRecord?
        let trips = try await RoundTripTests.trips(store) {
            arrived = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: key)
        }
        #expect(trips == RoundTripTests.expected["arrived+key"])
        #expect(arrived?.state == .arrived)
        try await TestPostgres.execute(Self.storedAnswerIsTheOldBuilders(account: cast.driver.id, key: key.key, ride: ride.id), at: location)

        var replayed: RideRecord?
        let replayTrips = try await RoundTripTests.trips(store) {
            replayed = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: key)
        }
        #expect(replayed == arrived)
        #expect(replayTrips == RoundTripTests.expected["arrived+key"])
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])

        let move = { (account: String, key: String, operation: String, ride: String, state: String, from: String) in
            "'\(account)', '\(key)', '\(operation)', '\(ride)', '\(state)', ARRAY[\(from)], '\(cast.driver.id)', NULL, now()"
        }
        let compare = { (arguments: String, expected: String) in
            try await TestPostgres.execute(Self.sameAnswer(old: "rb_move_ride_2", new: "rb_move_ride_9", arguments, expected: expected), at: location)
        }
        try await compare(move(cast.driver.id, key.key, "arrived:\(ride.id)", ride.id, "arrived", "'accepted'"), "replay")
        try await compare(move(cast.driver.id, key.key, "completed:\(ride.id)", ride.id, "completed", "'confirmed'"), "key-reused")
        try await compare(move(cast.driver.id, "fresh", "completed:\(ride.id)", ride.id, "completed", "'confirmed'"), "illegal")
        try await compare(move(cast.driver.id, "fresh", "arrived:none", "none", "arrived", "'accepted'"), "not-found")
        // None of them wrote: the ride, its events and the free key are as the replay left them.
        #expect(try await store.ride(id: ride.id) == arrived)
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])
        let confirmed = try await store.transition(rideID: ride.id, to: .confirmed, by: cast.driver.id, detail: nil,
                                                   idempotency: IdempotencyScope(accountID: cast.driver.id, key: "fresh"))
        #expect(confirmed.state == .confirmed)
        await store.close()
    }

    /// Accept's outcomes, old against new: a keyed first accept stores the old builder's bytes;
    /// its replay, a reused key, the driver's own ride again, busy, taken, cancelled and missing
    /// requests answer alike.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func acceptAnswersAsBefore() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_folded_accept")
        let store = try #require(opened as? PostgresStore)
        let cast = try await Cast(store)
        let request = try await cast.request(store)
        let key = IdempotencyScope(accountID: cast.driver.id, key: "accept-1")
        let ride = try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: key)
        try await TestPostgres.execute(Self.storedAnswerIsTheOldBuilders(account: cast.driver.id, key: key.key, ride: ride.id), at: location)
        #expect(try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: key) == ride)

        // No key (a NULL account) is an accept without an Idempotency-Key.
        let accept = { (account: String?, key: String, request: String, driver: String, oneAtATime: Bool) in
            (account.map { "'\($0)', '\(key)'" } ?? "NULL, NULL")
                + ", 'accept:\(request)', '\(request)', '\(driver)', 'ride-\(UUID().uuidString)', '\\x07'::bytea, \(oneAtATime), '\(driver)', NULL, now()"
        }
        let compare = { (arguments: String, expected: String) in
            try await TestPostgres.execute(Self.sameAnswer(old: "rb_accept_6", new: "rb_accept_9", arguments, expected: expected), at: location)
        }
        try await compare(accept(cast.driver.id, key.key, request.id, cast.driver.id, true), "replay")
        let other = try await cast.request(store)
        try await compare(accept(cast.driver.id, key.key, other.id, cast.driver.id, true), "key-reused")
        // His own active ride for this request, without a key (writes nothing) and with the rule off.
        try await compare(accept(nil, "", request.id, cast.driver.id, false), "ok")
        try await compare(accept(cast.driver.id, "busy-1", other.id, cast.driver.id, true), "busy")
        try await compare(accept(cast.otherDriver.id, "taken-1", request.id, cast.otherDriver.id, true), "taken")
        try await compare(accept(cast.otherDriver.id, "missing-1", "none", cast.otherDriver.id, true), "not-found")
        let cancelled = try await cast.request(store)
        _ = try await store.cancelRideRequest(id: cancelled.id, by: cast.passenger.id, reason: nil, idempotency: nil)
        try await compare(accept(cast.otherDriver.id, "cancelled-1", cancelled.id, cast.otherDriver.id, true), "illegal")
        // Nothing was written: the other request is still open for the other driver.
        let second = try await store.accept(requestID: other.id, driverID: cast.otherDriver.id, rideKey: sampleKey, idempotency: nil)
        #expect(second.driverID == cast.otherDriver.id && second.state == .accepted)
        await store.close()
    }

    /// Cancelling a request and a touch proof, old against `_9`, in the outcomes that write
    /// nothing: replay, a reused key, a missing request or ride, the wrong state.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func cancellingARequestAndATouchProofAnswerAsBefore() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_folded_cancel")
        let store = try #require(opened as? PostgresStore)
        let cast = try await Cast(store)
        let request = try await cast.request(store)
        let key = IdempotencyScope(accountID: cast.passenger.id, key: "cancel-1")
        _ = try await store.cancelRideRequest(id: request.id, by: cast.passenger.id, reason: nil, idempotency: key)
        let cancel = { (key: String, operation: String, id: String) in
            "'\(cast.passenger.id)', '\(key)', '\(operation)', '\(id)', '\(cast.passenger.id)', NULL, now()"
        }
        let compare = { (old: String, new: String, arguments: String, expected: String, sequenced: Bool?) in
            try await TestPostgres.execute(Self.sameAnswer(old: old, new: new, arguments, expected: expected, sequenced: sequenced), at: location)
        }
        try await compare("rb_cancel_request_2", "rb_cancel_request_9", cancel(key.key, "cancel-request:\(request.id)", request.id), "replay", nil)
        try await compare("rb_cancel_request_2", "rb_cancel_request_9", cancel(key.key, "create-request", request.id), "key-reused", nil)
        try await compare("rb_cancel_request_2", "rb_cancel_request_9", cancel("fresh-1", "cancel-request:none", "none"), "not-found", nil)
        try await compare("rb_cancel_request_2", "rb_cancel_request_9", cancel("fresh-2", "cancel-request:\(request.id)", request.id), "illegal", nil)

        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        let proof = { (key: String, operation: String, ride: String) in
            "'\(cast.passenger.id)', '\(key)', '\(operation)', '\(ride)', 'passenger', '\(cast.passenger.id)', 1, 'uuid', 1, 2, -40, 5, "
                + "now(), now(), now(), now(), 'mutual', 'driver', now(), now(), now(), now(), NULL, NULL, now(), now()"
        }
        try await compare("rb_touch_proof_7", "rb_touch_proof_9", proof("proof-1", "touch-proof:none", "none"), "not-found", nil)
        try await compare("rb_touch_proof_7", "rb_touch_proof_9", proof("proof-2", "touch-proof:\(ride.id)", ride.id), "illegal", nil)
        try await compare("rb_touch_proof_7", "rb_touch_proof_9", proof(key.key, "touch-proof:\(ride.id)", ride.id), "key-reused", nil)
        // Nothing was written: the ride is still accepted, its request's events requested and accepted.
        #expect(try await store.ride(id: ride.id)?.state == .accepted)
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.state) == [.requested, .accepted])
        await store.close()
    }
}
