import Foundation
import Logging
import PostgresNIO
import RideBeaconTesting
import Testing
@testable import RideStore

/// The contract every Store implementation must meet. Each test runs against every kind
/// listed in `StoreKind.available` (RideBeaconTesting).
extension StoreKind {
    func make() async throws -> any Store {
        try await makeStore().store
    }

    /// The store and the `--database` value that opens the same database again.
    func makeWithLocation() async throws -> (store: any Store, location: String) {
        try await makeStore()
    }
}

struct Cast {
    let passenger: Account
    let driver: Account
    let otherDriver: Account

    init(_ store: any Store) async throws {
        passenger = try await store.createAccount(NewAccount(role: .passenger, displayName: "Ana"))
        driver = try await store.createAccount(NewAccount(role: .driver, displayName: "Ben", vehicle: "blue Prius"))
        otherDriver = try await store.createAccount(NewAccount(role: .driver, displayName: "Cy", vehicle: "red Golf"))
    }

    func request(_ store: any Store, key: IdempotencyScope? = nil) async throws -> RideRequestRecord {
        try await store.createRideRequest(
            NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"),
            passengerID: passenger.id, idempotency: key)
    }
}

let sampleKey = Data(repeating: 7, count: 32)

@Suite("Store contract")
struct StoreContractTests {
    @Test(arguments: StoreKind.available)
    func tokensAuthenticateUntilRevoked(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let secret = Data("hash-of-secret".utf8)
        _ = try await store.addToken(accountID: cast.driver.id, secretHash: secret)
        #expect(try await store.authenticate(secretHash: secret) == cast.driver)
        #expect(try await store.authenticate(secretHash: Data("other".utf8)) == nil)
        #expect(try await store.revokeTokens(accountID: cast.driver.id) == 1)
        #expect(try await store.authenticate(secretHash: secret) == nil)
        // Oldest first; accounts made within one millisecond tie, so their order is not asserted.
        let accounts = try await store.accounts()
        #expect(Set(accounts.map(\.displayName)) == ["Ana", "Ben", "Cy"] && accounts.count == 3)
        #expect(zip(accounts, accounts.dropFirst()).allSatisfy { $0.createdAt <= $1.createdAt })
    }

    @Test(arguments: StoreKind.available)
    func acceptCreatesRideWithHistory(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let request = try await cast.request(store)
        #expect(try await store.openRideRequests(limit: 10).map(\.id) == [request.id])
        let ride = try await store.accept(requestID: request.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        #expect(ride.state == .accepted && ride.key == sampleKey && ride.passengerID == cast.passenger.id)
        #expect(try await store.openRideRequests(limit: 10).isEmpty)
        #expect(try await store.rideRequest(id: request.id)?.rideID == ride.id)
        let events = try await store.events(rideID: ride.id, after: 0)
        #expect(events.map(\.state) == [.requested, .accepted])
        #expect(events.map(\.sequence) == [1, 2])
    }

    @Test(arguments: StoreKind.available)
    func racingDriversExactlyOneWins(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let request = try await cast.request(store)
        var drivers: [Account] = []
        for i in 0..<8 { drivers.append(try await store.createAccount(NewAccount(role: .driver, displayName: "D\(i)"))) }
        let outcomes = await withTaskGroup(of: Result<RideRecord, any Error>.self) { group in
            for d in drivers {
                group.addTask {
                    do { return .success(try await store.accept(requestID: request.id, driverID: d.id, rideKey: sampleKey, idempotency: nil)) }
                    catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let winners = outcomes.compactMap { try? $0.get() }
        #expect(winners.count == 1)
        let losers = outcomes.compactMap { if case .failure(let e) = $0 { e as? StoreError } else { nil } }
        #expect(losers == Array(repeating: StoreError.alreadyTaken(request.id), count: 7))
        #expect(try await store.rides(RideFilter(scope: .active)).count == 1)
    }

    @Test(arguments: StoreKind.available)
    func lifecycleAndIllegalTransitions(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        await #expect(throws: StoreError.illegalTransition(from: .accepted, to: .confirmed)) {
            try await store.transition(rideID: ride.id, to: .confirmed, by: cast.driver.id, detail: nil, idempotency: nil)
        }
        for state in [RideState.arrived, .confirmed, .completed] {
            let moved = try await store.transition(rideID: ride.id, to: state, by: cast.driver.id, detail: nil, idempotency: nil)
            #expect(moved.state == state)
        }
        await #expect(throws: StoreError.illegalTransition(from: .completed, to: .cancelled)) {
            try await store.transition(rideID: ride.id, to: .cancelled, by: cast.passenger.id, detail: nil, idempotency: nil)
        }
        let events = try await store.events(rideID: ride.id, after: 0)
        #expect(events.map(\.sequence) == Array(1...5))
        #expect(events.last?.state == .completed)
        #expect(try await store.ride(id: ride.id)?.state == .completed)
        #expect(try await store.rides(RideFilter(scope: .active)).isEmpty)
        #expect(try await store.rides(RideFilter(scope: .participant(cast.passenger.id))).map(\.id) == [ride.id])
        #expect(try await store.rides(RideFilter(scope: .participant(cast.otherDriver.id))).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func cancelFromAnyStateBeforeCompleted(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        for path in [[RideState](), [.arrived], [.arrived, .confirmed]] {
            let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
            for s in path { _ = try await store.transition(rideID: ride.id, to: s, by: cast.driver.id, detail: nil, idempotency: nil) }
            let cancelled = try await store.transition(rideID: ride.id, to: .cancelled, by: cast.passenger.id, detail: "changed plans", idempotency: nil)
            #expect(cancelled.state == .cancelled)
            #expect(try await store.events(rideID: ride.id, after: 0).last?.detail == "changed plans")
        }
        let open = try await cast.request(store)
        #expect(try await store.cancelRideRequest(id: open.id, by: cast.passenger.id, idempotency: nil).status == .cancelled)
        await #expect(throws: StoreError.illegalTransition(from: .cancelled, to: .accepted)) {
            try await store.accept(requestID: open.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func idempotentRetriesReturnTheFirstResult(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let key = IdempotencyScope(accountID: cast.passenger.id, key: "req-1")
        let first = try await cast.request(store, key: key)
        let retry = try await cast.request(store, key: key)
        #expect(first == retry)
        #expect(try await store.rideRequests(passengerID: cast.passenger.id).count == 1)

        let acceptKey = IdempotencyScope(accountID: cast.driver.id, key: "acc-1")
        let ride = try await store.accept(requestID: first.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: acceptKey)
        #expect(try await store.accept(requestID: first.id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: acceptKey) == ride)
        let arriveKey = IdempotencyScope(accountID: cast.driver.id, key: "arr-1")
        _ = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: arriveKey)
        _ = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: arriveKey)
        #expect(try await store.events(rideID: ride.id, after: 0).count == 3)
        await #expect(throws: StoreError.idempotencyKeyReused("arr-1")) {
            try await store.transition(rideID: ride.id, to: .cancelled, by: cast.driver.id, detail: nil, idempotency: arriveKey)
        }
        // Keys are per account: another account's identical key is a different request.
        let other = IdempotencyScope(accountID: cast.otherDriver.id, key: "req-1")
        _ = try await store.createRideRequest(NewRideRequest(passengerName: "Cy", pickup: "a", dropoff: "b"), passengerID: cast.otherDriver.id, idempotency: other)
        #expect(try await store.rideRequests(passengerID: cast.otherDriver.id).count == 1)
    }

    @Test(arguments: StoreKind.available)
    func globalEventsResumeAndRidesPage(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        var rides: [RideRecord] = []
        for _ in 0..<5 {
            rides.append(try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil))
        }
        let all = try await store.events(after: 0, limit: 100)
        #expect(all.count == 10)
        #expect(all.map(\.id) == all.map(\.id).sorted())
        let resumed = try await store.events(after: all[3].id, limit: 100)
        #expect(resumed.map(\.id) == Array(all[4...]).map(\.id))
        let page1 = try await store.rides(RideFilter(scope: .active, limit: 2))
        let page2 = try await store.rides(RideFilter(scope: .active, limit: 2, after: page1.last?.id))
        let page3 = try await store.rides(RideFilter(scope: .active, limit: 2, after: page2.last?.id))
        // Oldest first; rides made in the same millisecond in id order (the page key).
        let listed = rides.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        #expect((page1 + page2 + page3).map(\.id) == listed.map(\.id))
    }

    @Test(arguments: StoreKind.available)
    func accountWritesAreIdempotent(kind: StoreKind) async throws {
        let store = try await kind.make()
        let admin = try await store.createAccount(NewAccount(role: .admin, displayName: "Root"))
        let key = IdempotencyScope(accountID: admin.id, key: "acct-1")
        let first = try await store.createAccount(NewAccount(role: .driver, displayName: "Dee", vehicle: "van"), idempotency: key)
        let retry = try await store.createAccount(NewAccount(role: .driver, displayName: "Dee", vehicle: "van"), idempotency: key)
        #expect(first == retry)
        #expect(try await store.accounts().count == 2)

        let tokenKey = IdempotencyScope(accountID: admin.id, key: "tok-1")
        let issued = try await store.addToken(accountID: first.id, secretHash: Data("h1".utf8), expiresAt: nil, idempotency: tokenKey)
        let replayed = try await store.addToken(accountID: first.id, secretHash: Data("h2".utf8), expiresAt: nil, idempotency: tokenKey)
        #expect(!issued.isReplay && replayed.isReplay && replayed.token == issued.token)
        // The replay stored nothing: only the first secret works.
        #expect(try await store.authenticate(secretHash: Data("h2".utf8)) == nil)
        #expect(try await store.authenticate(secretHash: Data("h1".utf8)) == first)

        let revokeKey = IdempotencyScope(accountID: admin.id, key: "rev-1")
        #expect(try await store.revokeTokens(accountID: first.id, idempotency: revokeKey) == 1)
        #expect(try await store.revokeTokens(accountID: first.id, idempotency: revokeKey) == 1)
        #expect(try await store.revokeTokens(accountID: first.id) == 0)
        await #expect(throws: StoreError.notFound("account nobody")) {
            try await store.addToken(accountID: "nobody", secretHash: Data("h3".utf8))
        }
    }

    @Test(arguments: StoreKind.available)
    func countsPingAndLastEventID(kind: StoreKind) async throws {
        let store = try await kind.make()
        try await store.ping()
        let cast = try await Cast(store)
        #expect(try await store.lastEventID() == 0)
        _ = try await cast.request(store)
        let ride = try await store.accept(requestID: try await cast.request(store).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        _ = try await store.transition(rideID: ride.id, to: .arrived, by: cast.driver.id, detail: nil, idempotency: nil)
        let counts = try await store.rideCounts()
        #expect(counts[.requested] == 1 && counts[.arrived] == 1 && counts[.accepted] == 0 && counts[.completed] == 0)
        let events = try await store.events(after: 0, limit: 10)
        #expect(try await store.lastEventID() == events.last?.id)
        // An anchor that names no ride is an empty page, on both stores alike.
        #expect(try await store.rides(RideFilter(scope: .active, after: "no-such-ride")).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func appendsReachListenersInOtherProcesses(kind: StoreKind) async throws {
        let (store, location) = try await kind.makeWithLocation()
        guard store.sharesEventsAcrossProcesses else {
            // SQLite: one process, nothing to listen to; the call must return at once.
            try await store.listenForAppendedEvents(onListening: {}, onAppend: { _ in })
            return
        }
        // A second store on the same database stands in for another server process.
        let other = try await StoreLocation.open(location, operationTimeout: StoreKind.testOperationTimeout)
        let cast = try await Cast(other)
        let (heard, heardSink) = AsyncStream.makeStream(of: Int64.self)
        let (listening, listeningSink) = AsyncStream.makeStream(of: Void.self)
        let listener = Task {
            try await store.listenForAppendedEvents(onListening: { listeningSink.yield() }, onAppend: { notice in
                if case .eventAppended(let id) = notice { heardSink.yield(id) }
            })
        }
        defer { listener.cancel() }
        for await _ in listening { break }
        let ride = try await other.accept(requestID: try await cast.request(other).id, driverID: cast.driver.id, rideKey: sampleKey, idempotency: nil)
        let written = try await other.events(rideID: ride.id, after: 0).map(\.id)
        var received: [Int64] = []
        for await id in heard {
            received.append(id)
            if received.count == written.count { break }
        }
        #expect(received == written)
        await other.close()
    }

    @Test func sqliteKeepsWritesAcrossReopen() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ridestore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("rides.sqlite").path
        let id: String
        do {
            let store = try SQLiteStore(path: path)
            id = try await store.createAccount(NewAccount(role: .admin, displayName: "Root")).id
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.account(id: id)?.displayName == "Root")
    }
}
