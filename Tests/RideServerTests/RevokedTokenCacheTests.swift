import Foundation
import HummingbirdTesting
@testable import RideServer
import RideStore
import RideBeaconTesting
import Synchronization
import Testing

/// Issue 39: a hot token is answered from the cache, and a revoked one is still refused at once
/// (`AuthenticationCache`). The servers here keep answers for ten minutes, so only the
/// revocation's own signal can make them forget: with it broken, the revoked token would work.
@Suite("Revoked tokens despite the authentication cache", .timeLimit(.minutes(2)))
struct RevokedTokenCacheTests {
    static let account = Account(id: "a1", role: .passenger, displayName: "Ana", vehicle: nil, createdAt: Date(timeIntervalSince1970: 0))

    /// A lookup that read the token before a revocation and answers after it: its answer may be
    /// the revoked token's, so it is not kept.
    @Test func aLookupOnItsWayDuringARevocationIsNotRemembered() async throws {
        let cache = AuthenticationCache(lifetime: 600, now: { Date() })
        let lookups = CountedLookups()
        let revokedMeanwhile: (Data) async throws -> Account? = { _ in
            lookups.add()
            cache.forgetAll()  // the revocation, heard while this lookup was on its way
            return Self.account
        }
        #expect(try await cache.account(secretHash: Data([1]), lookUp: revokedMeanwhile)?.id == "a1")
        let plain: (Data) async throws -> Account? = { _ in lookups.add(); return Self.account }
        _ = try await cache.account(secretHash: Data([1]), lookUp: plain)
        #expect(lookups.made == 2, "the answer from across the revocation was reused")
        _ = try await cache.account(secretHash: Data([1]), lookUp: plain)
        #expect(lookups.made == 2, "an answer from within one generation is reused")
    }

    /// Until the server listens for other servers' revocations, and whenever it stops, it
    /// cannot hear them: nothing is reused then.
    @Test func withoutRevocationSignalsEveryRequestLooksUp() async throws {
        let cache = AuthenticationCache(lifetime: 600, hearsRevocations: false, now: { Date() })
        let lookups = CountedLookups()
        let lookUp: (Data) async throws -> Account? = { _ in lookups.add(); return Self.account }
        for _ in 0..<2 { _ = try await cache.account(secretHash: Data([1]), lookUp: lookUp) }
        #expect(lookups.made == 2)
        cache.revocationSignals(heard: true)
        for _ in 0..<2 { _ = try await cache.account(secretHash: Data([1]), lookUp: lookUp) }
        #expect(lookups.made == 3)
        cache.revocationSignals(heard: false)
        for _ in 0..<2 { _ = try await cache.account(secretHash: Data([1]), lookUp: lookUp) }
        #expect(lookups.made == 5)
    }

    /// One server (SQLite, and PostgreSQL when available): revoked through the API, or straight
    /// in the store as another part of this process would, the next request is refused.
    @Test(arguments: StoreKind.available)
    func aRevokedTokenIsRefusedAtOnceOnItsServer(_ kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let app = world.app { $0.tokenCacheLifetime = 600 }
        try await app.test(.live) { client in
            for member in [world.passenger, world.driver] {
                #expect(try await client.call(.get, "/v1/me/language", as: member).status == .ok)
            }
            #expect(try await client.call(.post, "/v1/accounts/\(world.passenger.id)/revoke-tokens", as: world.admin).status == .ok)
            #expect(try await client.call(.get, "/v1/me/language", as: world.passenger).status == .unauthorized)
            _ = try await world.store.revokeTokens(accountID: world.driver.id, idempotency: nil)
            #expect(try await client.call(.get, "/v1/me/language", as: world.driver).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/me/language", as: world.dispatcher).status == .ok)
        }
        await world.close()
    }
}

/// Two servers on one PostgreSQL, each caching answers for ten minutes. A revocation through one
/// reaches the other by PostgreSQL's NOTIFY, which is asynchronous: "at once" on the other
/// server means from the moment it has heard the notification (its open stream of that token
/// ending says so), not before; see `AuthenticationCache`.
@Suite("Revoked tokens on every server despite the cache", .tags(.postgres), .timeLimit(.minutes(2)))
struct RevokedTokenOnEveryServerTests {
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func aRevokedTokenIsRefusedOnTheOtherServerOnceItHeardTheRevocation() async throws {
        let world = try await World.make(.postgres)
        let otherStore = try await StoreLocation.open(world.location, operationTimeout: StoreKind.testOperationTimeout)
        let counted = try #require(otherStore as? PostgresStore)
        let member = world.otherPassenger
        try await world.app { $0.tokenCacheLifetime = 600 }.test(.live) { first in
            try await world.app(store: otherStore) { $0.tokenCacheLifetime = 600 }.test(.live) { second in
                // The second server answers from its cache once it listens for revocations: a
                // request that costs no lookup says so (until then each one looks up).
                var cached = false
                for _ in 0..<600 where !cached {
                    let before = counted.roundTrips.byOperation["authenticate"]?.calls ?? 0
                    #expect(try await second.call(.get, "/v1/me/language", as: member).status == .ok)
                    cached = counted.roundTrips.byOperation["authenticate"]?.calls == before
                    if !cached { try await Task.sleep(for: .milliseconds(100)) }
                }
                try #require(cached, "the second server never used its cache")
                #expect(try await first.call(.get, "/v1/me/language", as: member).status == .ok)
                let ride = try await world.acceptedRide(passenger: member)
                let stream = try await SSEReader.open(port: try #require(second.port), path: "/v1/rides/\(ride.id)/events", token: member.token)

                #expect(try await first.call(.post, "/v1/accounts/\(member.id)/revoke-tokens", as: world.admin).status == .ok)
                #expect(try await first.call(.get, "/v1/me/language", as: member).status == .unauthorized)
                // The second server heard it when it ended the token's stream (it forgets the
                // cached answers first); its next request with the token is refused.
                var heard = false
                for _ in 0..<600 where !heard {
                    heard = await stream.messages.contains { $0.event == "error" && $0.json["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } == "token_revoked" }
                    if !heard { try await Task.sleep(for: .milliseconds(50)) }
                }
                try #require(heard, "the second server never ended the revoked token's stream")
                #expect(try await second.call(.get, "/v1/me/language", as: member).status == .unauthorized)
                #expect(try await second.call(.get, "/v1/me/language", as: world.passenger).status == .ok)
            }
        }
        await otherStore.close()
        await world.close()
    }
}

/// Lookups counted by closures that share it (a `Mutex` cannot be captured by one).
final class CountedLookups: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var made: Int { count.withLock { $0 } }
}

fileprivate extension World {
    /// `acceptedRide()` for another passenger.
    func acceptedRide(passenger: Member) async throws -> RideRecord {
        let request = try await store.createRideRequest(
            NewRideRequest(passengerName: "Bea", pickup: "Main St 1", dropoff: "Station"), passengerID: passenger.id, idempotency: nil)
        return try await store.accept(requestID: request.id, driverID: driver.id, rideKey: Data(repeating: 9, count: 32), idempotency: nil)
    }
}
