import Foundation
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 28: how many statements the PostgreSQL store sends and waits for per ride transition,
/// through its counter (`RoundTrips`). The count includes the sequencing run each write starts
/// (nothing else runs on this store, so no other write shares it).
@Suite("PostgreSQL round trips per transition")
struct RoundTripTests {
    /// What each call costs, with the Idempotency-Key the API's writes carry (the load's
    /// requests, accepts and arrivals do) and without one: the transition function's statement
    /// and the sequencing run it starts (shared with other writes under load); the locator
    /// reads its event back with its id.
    ///
    /// Before issue 28 (measured by this test on the transaction-per-write code, 2026-11-26):
    /// request 12 / 14 with a key (one ride at a time), accept 12 / 14, arrived, confirmed,
    /// completed and cancelled 8 / 10 each, cancel request 9 / 11, locator 10, a touch proof
    /// 10, the confirming one 11; authenticate, ride and ride detail 1 each.
    ///
    /// The power-loss finding (a lone function call's answer can precede its durable commit) was
    /// first fixed with BEGIN … COMMIT around each call: 4 a write. Each write is now a CALL of
    /// a procedure that commits before answering (TransitionProcedures): 2 again, the CALL and
    /// the sequencing run; a write back inside BEGIN … COMMIT counts 4 here and fails. The
    /// locator and a ride note (a passenger's message) answer with their event and its id, and
    /// sequence it in the same CALL: 1 (3 and 6 before: the write, the run, a read-back); a
    /// message with its Idempotency-Key too, and its retry (the stored answer, the event read back).
    ///
    /// Every transition sequences its own event in its CALL when the sequencing lock is free, as
    /// it always is here (SelfSequencingTransitions): 1 (2 before).
    static let expected: [String: Int] = [
        "request+key": 1, "request": 1, "accept+key": 1, "accept": 1, "arrived+key": 1, "arrived": 1,
        "locator": 1, "note": 1, "note+key": 1, "note+key-replay": 1, "touch-proof": 1, "touch-proof-confirms": 1, "confirmed+key": 1, "confirmed": 1,
        "completed+key": 1, "completed": 1, "cancelled+key": 1, "cancelled": 1, "cancel-request+key": 1, "cancel-request": 1,
        "authenticate": 1, "ride": 1, "ride-detail": 1,
    ]

    static func postgres() async throws -> PostgresStore? {
        guard StoreKind.available.contains(.postgres) else { return nil }
        return try await StoreKind.postgres.make() as? PostgresStore
    }

    /// The round trips `body` took on `store`.
    static func trips(_ store: PostgresStore, _ body: () async throws -> Void) async throws -> Int {
        let before = store.roundTrips.total
        try await body()
        return store.roundTrips.total - before
    }

    @Test func eachTransitionsRoundTrips() async throws {
        guard let store = try await Self.postgres() else { return }
        let cast = try await Cast(store)
        var counted: [String: Int] = [:]
        var n = 0
        func key(_ account: Account) -> IdempotencyScope { n += 1; return IdempotencyScope(accountID: account.id, key: "k\(n)") }
        for keyed in [true, false] {
            let suffix = keyed ? "+key" : ""
            var request: RideRequestRecord?
            counted["request" + suffix] = try await Self.trips(store) {
                request = try await store.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"), passengerID: cast.passenger.id,
                                                            rule: .oneRideAtATime, idempotency: keyed ? key(cast.passenger) : nil)
            }
            var ride: RideRecord?
            counted["accept" + suffix] = try await Self.trips(store) {
                ride = try await store.accept(requestID: request!.id, driverID: cast.driver.id, rideKey: sampleKey, rule: .oneRideAtATime,
                                              assignedBy: nil, idempotency: keyed ? key(cast.driver) : nil)
            }
            for state in [RideState.arrived, .confirmed, .completed] {
                counted[state.rawValue + suffix] = try await Self.trips(store) {
                    _ = try await store.transition(rideID: ride!.id, to: state, by: cast.driver.id, detail: nil, idempotency: keyed ? key(cast.driver) : nil)
                }
            }
            let cancelled = try await cast.request(store)
            counted["cancel-request" + suffix] = try await Self.trips(store) {
                _ = try await store.cancelRideRequest(id: cancelled.id, by: cast.passenger.id, reason: "changed plans", idempotency: keyed ? key(cast.passenger) : nil)
            }
            let toCancel = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
            counted["cancelled" + suffix] = try await Self.trips(store) {
                _ = try await store.transition(rideID: toCancel.id, to: .cancelled, by: cast.passenger.id, detail: nil, idempotency: keyed ? key(cast.passenger) : nil)
            }
        }
        let arrived = try await TouchProofStoreTests.arrivedRide(store, cast)
        counted["locator"] = try await Self.trips(store) {
            let answer = try await store.requestLocator(rideID: arrived.id, by: cast.passenger.id, at: Date(), minimumInterval: 5)
            guard case .recorded = answer else { Issue.record("locator refused: \(answer)"); return }
        }
        counted["note"] = try await Self.trips(store) {
            let answer = try await store.recordRideNote(RideNote(rideID: arrived.id, kind: .passengerMessage, actorID: cast.passenger.id, at: Date(),
                                                                  detail: "I am by the door"))
            guard case .recorded(let event) = answer else { Issue.record("note refused: \(answer)"); return }
            #expect(event.kind == .passengerMessage && event.detail == "I am by the door")
        }
        // A passenger's message with its Idempotency-Key, and its retry: still one CALL each.
        let noteKey = key(cast.passenger)
        let keyedNote = RideNote(rideID: arrived.id, kind: .passengerMessage, actorID: cast.passenger.id, at: Date(), detail: "By the main door")
        var firstKeyed: KeyedRideNoteRecording?
        counted["note+key"] = try await Self.trips(store) {
            firstKeyed = try await store.recordRideNote(keyedNote, idempotency: noteKey)
            #expect(firstKeyed?.isReplay == false)
        }
        counted["note+key-replay"] = try await Self.trips(store) {
            let replay = try await store.recordRideNote(keyedNote, idempotency: noteKey)
            #expect(replay.isReplay && replay.recording == firstKeyed?.recording)
        }
        counted["touch-proof"] = try await Self.trips(store) {
            _ = try await store.recordTouchProof(TouchProofStoreTests.proof(arrived, .passenger), policy: .mutual, idempotency: nil)
        }
        counted["touch-proof-confirms"] = try await Self.trips(store) {
            let both = try await store.recordTouchProof(TouchProofStoreTests.proof(arrived, .driver, receivedAfter: 1, heldFor: 10), policy: .mutual, idempotency: nil)
            #expect(both.confirmed)
        }
        let secret = Data("round-trip-secret".utf8)
        _ = try await store.addToken(accountID: cast.driver.id, secretHash: secret)
        counted["authenticate"] = try await Self.trips(store) { _ = try await store.authenticate(secretHash: secret) }
        counted["ride"] = try await Self.trips(store) { _ = try await store.ride(id: arrived.id) }
        counted["ride-detail"] = try await Self.trips(store) { _ = try await store.rideDetail(id: arrived.id) }
        print("round trips per transition: \(counted.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
        #expect(counted == Self.expected)
    }

    @Test func theCounterNamesEachOperation() async throws {
        guard let store = try await Self.postgres() else { return }
        let cast = try await Cast(store)
        let request = try await cast.request(store)
        _ = try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        let byOperation = store.roundTrips.byOperation
        #expect(byOperation["request"]?.calls == 1 && byOperation["accept"]?.calls == 1)
        #expect(byOperation["accept"]?.roundTrips == Self.expected["accept"])
        #expect(store.roundTrips.summary.contains("accept=1/\(Self.expected["accept"]!)"))
    }
}
