import Foundation
import PostgresNIO
import RideBeaconTesting
import Synchronization
import Testing
@testable import RideStore

/// Issue 39: request, accept and the moves sequence their own event when nobody holds the
/// sequencing lock (SelfSequencingTransitions): one CALL, nothing left staged, and another
/// server hears the event. When the lock is held they leave the event staged, commit, and the
/// server's run sequences it once the lock is free: the call answers only then, never before
/// its event is in the history.
@Suite("Self-sequencing transitions", .timeLimit(.minutes(3)))
struct SelfSequencingTests {
    static func count(_ table: String, on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*)::int8 FROM \(table)"), logger: TestPostgres.logger)
        return try await rows.collect().first?.decode(Int64.self) ?? -1
    }

    /// Stages `ride`'s arrival and commits it without sequencing it (the `_8` procedure never
    /// sequences), as a server that died after its commit leaves it.
    static func stageArrival(of ride: RideRecord, by driver: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query(PostgresQuery(unsafeSQL: """
            CALL rb_move_ride_8(NULL, NULL, 'arrived:\(ride.id)', '\(ride.id)', 'arrived', ARRAY['accepted'], '\(driver)', NULL, now(),
                                NULL, NULL, NULL)
            """), logger: TestPostgres.logger)
    }

    /// Polls `condition` every 50 ms, for up to `seconds` (load only makes it slower).
    static func eventually(seconds: Double = 30, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func withTheLockFreeEachTransitionSequencesItselfAndAnotherServerHearsIt() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_selfseq_free")
        let store = try #require(opened as? PostgresStore)
        let cast = try await Cast(store)
        // Another server on the same database, listening as its event hub does.
        let other = try PostgresStore(url: location, operationTimeout: StoreKind.testOperationTimeout, connections: 2)
        let heard = Mutex<Int64>(0)
        let listening = Mutex(false)
        let ear = Task {
            try await other.listenForAppendedEvents(onListening: { listening.withLock { $0 = true } }, onAppend: { notice in
                if case .eventAppended(let id) = notice { heard.withLock { $0 = max($0, id) } }
            })
        }
        defer { ear.cancel() }
        #expect(try await Self.eventually { listening.withLock { $0 } })
        let database = try await TestPostgres.connect(at: location)

        var trips = [Int]()
        var request: RideRequestRecord?
        trips.append(try await RoundTripTests.trips(store) { request = try await cast.request(store) })
        var ride: RideRecord?
        trips.append(try await RoundTripTests.trips(store) {
            ride = try await store.accept(requestID: request!.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        })
        trips.append(try await RoundTripTests.trips(store) {
            _ = try await store.transition(rideID: ride!.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
        })
        #expect(trips == [1, 1, 1], "each transition one CALL, no separate sequencing run")
        #expect(try await Self.count("ride_event_pending", on: database) == 0)
        let history = try await store.events(rideID: ride!.id, after: 0)
        #expect(history.map(\.state) == [.requested, .accepted, .arrived])
        let newest = try #require(history.last?.id)
        #expect(try await Self.eventually { heard.withLock { $0 } >= newest }, "the other server was notified of event \(newest)")
        try await database.close()
        await other.close()
        await store.close()
    }

    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func withTheLockHeldTheTransitionCommitsAndTheServersRunSequencesItAfter() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_selfseq_held")
        let store = try #require(opened as? PostgresStore)
        let cast = try await Cast(store)
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        // Another session holds the sequencing lock, as a run or a transition on another server would.
        let holder = try await TestPostgres.connect(at: location)
        try await holder.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock(\(AdvisoryLock.eventSequencing))"), logger: TestPostgres.logger)

        let finished = Mutex(false)
        let arrive = Task {
            let trips = try await RoundTripTests.trips(store) {
                _ = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
            }
            finished.withLock { $0 = true }
            return trips
        }
        // The transition committed without waiting for the lock: the ride moved, its event staged.
        let state = { () async throws -> String? in
            let rows = try await holder.query("SELECT state FROM ride WHERE id = \(ride.id)", logger: TestPostgres.logger)
            return try await rows.collect().first?.decode(String.self)
        }
        #expect(try await Self.eventually { try await state() == "arrived" })
        #expect(try await Self.eventually { try await Self.count("ride_event_pending", on: holder) == 1 })
        // The call waits for the server's run, which waits for the lock: not answered yet.
        try await Task.sleep(for: .milliseconds(200))
        #expect(!finished.withLock { $0 }, "answered before its event was in the history")
        // (Read on the holder's session: a read through the store would count as one of its trips.)
        #expect(try await Self.count("ride_event WHERE state = 'arrived'", on: holder) == 0)

        try await holder.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(AdvisoryLock.eventSequencing))"), logger: TestPostgres.logger)
        #expect(try await arrive.value == 2, "the CALL, then the server's sequencing run")
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])
        #expect(try await Self.count("ride_event_pending", on: holder) == 0)
        try await holder.close()
        await store.close()
    }

    /// The move inside a transition never waits on another writer's row: with ride Y's arrival
    /// staged and Y's row held FOR UPDATE by another session (as a ride note or an ETA holds
    /// it), ride X's arrival answers at once, 'ok' and not sequenced (its move's foreign-key
    /// check on Y gave up after the 1 ms lock_timeout and was rolled back); once Y is free a run
    /// moves both. Without that block the CALL waited for Y, holding the sequencing lock.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func theMoveNeverWaitsOnAnotherWritersRow() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_selfseq_rowlock")
        let store = try #require(opened as? PostgresStore)
        let cast = try await Cast(store)
        let x = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        let y = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.otherDriver.id, rideKey: sampleKey, idempotency: nil)
        let holder = try await TestPostgres.connect(at: location)
        let caller = try await TestPostgres.connect(at: location)
        let logger = TestPostgres.logger
        // Y's arrival staged and committed, not sequenced.
        try await Self.stageArrival(of: y, by: cast.otherDriver.id, on: holder)
        #expect(try await Self.count("ride_event_pending", on: caller) == 1)
        _ = try await holder.query("BEGIN", logger: logger)
        _ = try await holder.query(PostgresQuery(unsafeSQL: "SELECT 1 FROM ride WHERE id = '\(y.id)' FOR UPDATE"), logger: logger)

        let answered = Mutex(false)
        let arrive = Task {
            let rows = try await caller.query(PostgresQuery(unsafeSQL: """
                CALL rb_move_ride_9(NULL, NULL, 'arrived:\(x.id)', '\(x.id)', 'arrived', ARRAY['accepted'], '\(cast.driver.id)', NULL, now(),
                                    '\(PostgresStore.eventChannel)', NULL, NULL, NULL, NULL)
                """), logger: logger)
            let answer = try await rows.collect().first?.decode((String, String?, Data?, Bool?).self)
            answered.withLock { $0 = true }
            return answer
        }
        let answeredWhileHeld = try await Self.eventually { answered.withLock { $0 } }
        _ = try await holder.query("ROLLBACK", logger: logger)
        let answer = try await arrive.value
        #expect(answeredWhileHeld, "the CALL waited for another session's row lock")
        #expect(answer?.0 == "ok" && answer?.3 == false, "\(String(describing: answer))")
        // Both arrivals committed and staged; the next run (any server's) moves them.
        #expect(try await Self.count("ride_event_pending", on: caller) == 2)
        try await store.sequenceEvents()
        #expect(try await Self.count("ride_event_pending", on: caller) == 0)
        #expect(try await store.events(rideID: x.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])
        #expect(try await store.events(rideID: y.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])
        try await holder.close()
        try await caller.close()
        await store.close()
    }

    /// A transition moves every event staged before it, in staging order, ahead of its own: one
    /// left staged by a writer that never sequenced it (the `_8` procedure, as a server that died
    /// after its commit leaves it) gets the lower id. A keyed retry (a replay) sequences what is
    /// staged too, in its one CALL.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func aTransitionAndAReplayMoveEarlierStagedEventsFirst() async throws {
        let (opened, location) = try await StoreKind.postgres.makeStore(prefix: "rb_selfseq_order")
        let store = try #require(opened as? PostgresStore)
        let cast = try await Cast(store)
        let x = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        let y = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.otherDriver.id, rideKey: sampleKey, idempotency: nil)
        let connection = try await TestPostgres.connect(at: location)
        try await Self.stageArrival(of: y, by: cast.otherDriver.id, on: connection)
        let key = IdempotencyScope(accountID: cast.driver.id, key: "arrive-x")
        let trips = try await RoundTripTests.trips(store) {
            _ = try await store.transition(rideID: x.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: key)
        }
        #expect(trips == 1)
        #expect(try await Self.count("ride_event_pending", on: connection) == 0)
        let yArrived = try #require(try await store.events(rideID: y.id, after: 0).last)
        let xArrived = try #require(try await store.events(rideID: x.id, after: 0).last)
        #expect(yArrived.state == .arrived && xArrived.state == .arrived)
        #expect(yArrived.id < xArrived.id, "the event staged first is sequenced first")

        // Another event left staged, then the keyed arrival of x again: a replay, one CALL.
        let z = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.otherDriver.id, rideKey: sampleKey, idempotency: nil)
        try await Self.stageArrival(of: z, by: cast.otherDriver.id, on: connection)
        let replayTrips = try await RoundTripTests.trips(store) {
            _ = try await store.transition(rideID: x.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: key)
        }
        #expect(replayTrips == 1)
        #expect(try await Self.count("ride_event_pending", on: connection) == 0)
        #expect(try await store.events(rideID: z.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])
        try await connection.close()
        await store.close()
    }
}
