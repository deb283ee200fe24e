import Foundation
import GRDB
import RideBeaconTesting
import Testing
@testable import RideStore

/// The contract, continued: rides with their people, request paging, token expiry and the
/// request-level history that lets dispatchers see new requests.
@Suite("Store contract: details, paging, expiry, request events")
struct StoreContractDetailTests {
    @Test(arguments: StoreKind.available)
    func expiredTokensAreRefusedLikeRevokedOnes(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        _ = try await store.addToken(accountID: cast.driver.id, secretHash: Data("past".utf8), expiresAt: Date(timeIntervalSinceNow: -1))
        let future = try await store.addToken(accountID: cast.driver.id, secretHash: Data("future".utf8), expiresAt: Date(timeIntervalSince1970: 4_102_444_800))
        _ = try await store.addToken(accountID: cast.driver.id, secretHash: Data("forever".utf8))
        #expect(try await store.authenticate(secretHash: Data("past".utf8)) == nil)
        #expect(try await store.authenticate(secretHash: Data("future".utf8)) == cast.driver)
        #expect(try await store.authenticate(secretHash: Data("forever".utf8)) == cast.driver)
        #expect(future.expiresAt == Date(timeIntervalSince1970: 4_102_444_800))
        // Revocation still ends a token that has not expired yet.
        _ = try await store.revokeTokens(accountID: cast.driver.id)
        #expect(try await store.authenticate(secretHash: Data("future".utf8)) == nil)
    }

    @Test(arguments: StoreKind.available)
    func rideDetailsNameTheirPeople(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let plain = try await store.createAccount(NewAccount(role: .driver, displayName: "Dee"))
        let first = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        let second = try await store.accept(requestID: try await cast.request(store).id, driverID: plain.id, rideKey: sampleKey, idempotency: nil)
        let detail = try #require(try await store.rideDetail(id: first.id))
        #expect(detail.ride == first)
        #expect(detail.passenger == RideParty(name: "Ana") && detail.driver == RideParty(name: "Ben", vehicle: "blue Prius", vehicleDetails: Vehicle(colour: "blue", model: "Prius")))
        #expect(try await store.rideDetail(id: "no-such-ride") == nil)

        let page1 = try await store.rideDetails(RideFilter(scope: .active, limit: 1))
        let page2 = try await store.rideDetails(RideFilter(scope: .active, limit: 1, after: page1.last?.ride.id))
        // Oldest first; rides made in the same millisecond in id order (the page key).
        let listed = [first, second].sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        #expect((page1 + page2).map(\.ride.id) == listed.map(\.id))
        #expect((page1 + page2).first { $0.ride.id == second.id }?.driver == RideParty(name: "Dee", vehicle: nil))
        _ = try await store.transition(rideID: first.id, to: .cancelled, by: cast.passenger.id, detail: nil, idempotency: nil)
        #expect(try await store.rideDetails(RideFilter(scope: .active)).map(\.ride.id) == [second.id])
        #expect(try await store.rideDetails(RideFilter(scope: .participant(cast.driver.id))).map(\.ride.state) == [.cancelled])
    }

    @Test(arguments: StoreKind.available)
    func requestListsArePaged(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        var made: [RideRequestRecord] = []
        for _ in 0..<5 { made.append(try await cast.request(store)) }
        // Listed oldest first; requests made in the same millisecond in id order (the page key).
        made.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        var pages: [[RideRequestRecord]] = []
        var after: String?
        repeat {
            let page = try await store.rideRequests(passengerID: cast.passenger.id, limit: 2, after: after)
            pages.append(page)
            after = page.count == 2 ? page.last?.id : nil
        } while after != nil
        #expect(pages.map(\.count) == [2, 2, 1])
        #expect(pages.flatMap { $0 }.map(\.id) == made.map(\.id))
        _ = try await store.accept(requestID: made[1].id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        // The accepted request still anchors a page of the open ones.
        #expect(try await store.openRideRequests(limit: 2, after: made[1].id).map(\.id) == [made[2].id, made[3].id])
        #expect(try await store.openRideRequests(limit: 10, after: "no-such-request").isEmpty)
        #expect(try await store.rideRequests(passengerID: cast.driver.id, limit: 10, after: nil).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func requestsHaveHistoryBeforeAnyDriverAccepts(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let withdrawn = try await cast.request(store)
        _ = try await store.cancelRideRequest(id: withdrawn.id, by: cast.passenger.id, idempotency: nil)
        let taken = try await cast.request(store)
        let ride = try await store.accept(requestID: taken.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)

        let all = try await store.events(after: 0, limit: 10)
        #expect(all.map(\.state) == [.requested, .cancelled, .requested, .accepted])
        #expect(all.map(\.requestID) == [withdrawn.id, withdrawn.id, taken.id, taken.id])
        #expect(all.map(\.rideID) == [nil, nil, nil, ride.id])
        #expect(all[1].actorID == cast.passenger.id && all[0].at == withdrawn.createdAt)
        // The ride's history starts at its request, and holds nothing of other requests.
        let history = try await store.events(rideID: ride.id, after: 0)
        #expect(history.map(\.id) == [all[2].id, all[3].id] && history.map(\.sequence) == [1, 2])
        // Idempotent replays append nothing.
        let key = IdempotencyScope(accountID: cast.passenger.id, key: "again")
        _ = try await cast.request(store, key: key)
        _ = try await cast.request(store, key: key)
        #expect(try await store.events(after: all[3].id, limit: 10).count == 1)
    }

    /// A database made by the first schema keeps its history (ids included, so clients'
    /// Last-Event-ID still works) and gains `requested` events for requests still open.
    @Test func sqliteUpgradeKeepsHistory() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ridestore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("rides.sqlite").path
        do {
            let pool = try DatabasePool(path: path)
            try SQLiteMigrations.migrator.migrate(pool, upTo: "v1")
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO account VALUES ('p', 'passenger', 'Ana', NULL, 1), ('d', 'driver', 'Ben', 'van', 1)")
                try db.execute(sql: """
                    INSERT INTO rideRequest VALUES ('q1', 'p', 'Ana', 'a', 'b', NULL, 'accepted', 2, 'r1'),
                                                   ('q2', 'p', 'Ana', 'a', 'b', NULL, 'open', 3, NULL)
                    """)
                try db.execute(sql: "INSERT INTO ride VALUES ('r1', 'q1', 'p', 'd', 'arrived', x'00', 4, 5)")
                try db.execute(sql: """
                    INSERT INTO rideEvent (id, rideID, sequence, state, actorID, at) VALUES
                    (7, 'r1', 1, 'requested', 'p', 2), (8, 'r1', 2, 'accepted', 'd', 4), (9, 'r1', 3, 'arrived', 'd', 5)
                    """)
            }
            try pool.close()
        }
        let store = try SQLiteStore(path: path)
        let history = try await store.events(rideID: "r1", after: 0)
        #expect(history.map(\.id) == [7, 8, 9] && history.allSatisfy { $0.requestID == "q1" && $0.rideID == "r1" })
        let added = try await store.events(after: 9, limit: 10)
        #expect(added.map(\.requestID) == ["q2"] && added.first?.state == .requested && added.first?.rideID == nil)
        #expect(added.first?.id == 10)
    }
}
