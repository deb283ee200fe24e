import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 28, durability: a PostgreSQL transition answers only after its transaction committed.
/// A lone function call's row reached the client before the commit at Sync (power_loss.py lost
/// an acknowledged arrival that way); the procedures commit in their body, before the row.
///
/// A deferred constraint trigger that raises makes COMMIT itself fail, deterministically: an
/// answer sent before the commit would be a success for a write that never happened.
@Suite("PostgreSQL transitions answer after their commit")
struct DurableAnswerTests {
    static let refuseAtCommit = [
        "CREATE FUNCTION rb_test_refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$",
        """
        CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER UPDATE ON ride DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION rb_test_refuse_commit()
        """,
    ]

    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func aWriteWhoseCommitFailsIsNotAnsweredAndItsKeyIsFree() async throws {
        let (store, location) = try await StoreKind.postgres.makeStore(prefix: "rb_commit_refused")
        let cast = try await Cast(store)
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        for sql in Self.refuseAtCommit { try await TestPostgres.execute(sql, at: location) }
        let key = IdempotencyScope(accountID: cast.driver.id, key: "arrive-once")
        await #expect(throws: (any Error).self) {
            try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: key)
        }
        try await TestPostgres.execute("DROP TRIGGER refuse_at_commit ON ride", at: location)
        // Nothing of the failed write is left: not the state, not the event, not the key's result.
        #expect(try await store.ride(id: ride.id)?.state == .accepted)
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.state) == [.requested, .accepted])
        let retried = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: key)
        #expect(retried.state == .arrived)
        #expect(try await store.events(rideID: ride.id, after: 0).map(\.state) == [.requested, .accepted, .arrived])
        await store.close()
    }

    /// The transitions are CALLs of procedures, which refuse to run inside BEGIN … COMMIT (their
    /// COMMIT is an "invalid transaction termination" there): so nothing wraps them again.
    @Test func everyTransitionIsACallOfAProcedureThatCommits() {
        let statements = [TransitionSQL.CreateRequest.sql, TransitionSQL.CancelRequest.sql, TransitionSQL.Accept.sql, TransitionSQL.MoveRide.sql,
                          TransitionSQL.TouchProof.sql, TransitionSQL.RequestLocator.sql]
        // Every procedure any migration installs (a later migration adds `_N` procedures).
        let installed = PostgresMigrations.all.migrations.flatMap(\.step)
        for statement in statements + [TransitionSQL.SequenceEvents.sql, TransitionSQL.RecordNote.sql] {
            #expect(statement.hasPrefix("CALL rb_"))
            let name = statement.dropFirst("CALL ".count).prefix { $0 != "(" }
            let procedure = installed.first { $0.hasPrefix("CREATE PROCEDURE \(name)(") }
            #expect(procedure?.contains("COMMIT;") == true, "\(name)")
        }
    }
}
