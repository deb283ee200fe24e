import Foundation
import RideBeaconTesting
import Synchronization
import Testing
@testable import RideStore

/// Both stores: a token's device name (issue 25, v10-token-device-names) and the announcements
/// of committed writes the event hub wakes on (issue 27).
@Suite("Store: token device names, commit announcements")
struct TokenDeviceAndCommitStoreTests {
    @Test(arguments: StoreKind.available)
    func aTokenKeepsItsDeviceNameAndOnlyItsAccountNamesIt(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let token = try await store.addToken(accountID: cast.passenger.id, secretHash: Data(repeating: 1, count: 32))
        #expect(try await store.tokens(accountID: cast.passenger.id).first?.deviceName == nil, "unnamed until named")
        try await store.nameTokenDevice(id: token.id, accountID: cast.passenger.id, deviceName: "Ana's phone")
        let listed = try #require(try await store.tokens(accountID: cast.passenger.id).first)
        #expect(listed.deviceName == "Ana's phone" && listed.handle == String(token.id.prefix(6)))
        await #expect(throws: StoreError.self, "another account's token is not found") {
            try await store.nameTokenDevice(id: token.id, accountID: cast.driver.id, deviceName: "stolen")
        }
        #expect(try await store.tokens(accountID: cast.passenger.id).first?.deviceName == "Ana's phone", "the refusal changed nothing")
        await store.close()
    }

    @Test(arguments: StoreKind.available)
    func writesThatAppendEventsAndRevocationsAnnounceThemselves(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let heard = Mutex<[CommittedChange]>([])
        let observation = store.commits.observe { change in heard.withLock { $0.append(change) } }
        _ = try await store.addToken(accountID: cast.passenger.id, secretHash: Data(repeating: 2, count: 32))
        #expect(heard.withLock { $0 }.isEmpty, "a write that appends no event and revokes nothing is not announced")
        _ = try await cast.request(store)
        #expect(heard.withLock { $0 }.contains(.eventsAppended), "the request's first event was announced by its commit")
        _ = try await store.revokeTokens(accountID: cast.passenger.id, idempotency: nil)
        #expect(heard.withLock { $0 }.last == .tokensRevoked)
        observation.cancel()
        let count = heard.withLock { $0.count }
        _ = try await cast.request(store)
        #expect(heard.withLock { $0.count } == count, "a cancelled observation hears nothing more")
        await store.close()
    }

    @Test(arguments: StoreKind.available)
    func aRevocationThatFailedIsNotAnnounced(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let token = try await store.addToken(accountID: cast.passenger.id, secretHash: Data(repeating: 3, count: 32))
        let heard = Mutex<[CommittedChange]>([])
        let observation = store.commits.observe { change in heard.withLock { $0.append(change) } }
        await #expect(throws: StoreError.self, "another account's token is not found") {
            _ = try await store.revokeToken(id: token.id, accountID: cast.driver.id)
        }
        #expect(heard.withLock { $0 }.isEmpty, "nothing committed, so nothing announced")
        _ = try await store.revokeToken(id: token.id, accountID: cast.passenger.id)
        #expect(heard.withLock { $0 } == [.tokensRevoked], "announced once its write committed")
        observation.cancel()
        await store.close()
    }

    /// GRDB ends a region observation that meets an error; the store must count it and watch
    /// again, or every stream would quietly fall back to the hub's poll.
    @Test func aFailedEventObservationIsCountedAndStartedAgain() async throws {
        let store = try SQLiteStore(path: String(try StoreKind.sqliteDatabase(prefix: "rb_observation").dropFirst("sqlite:".count)))
        let cast = try await Cast(store)
        let heard = Mutex<Int>(0)
        let observation = store.commits.observe { change in
            if change == .eventsAppended { heard.withLock { $0 += 1 } }
        }
        struct Broken: Error {}
        store.eventsObservation.failed(Broken())
        #expect(store.commits.observationFailures == 1)
        // Restarted after a short delay: write until a commit is announced again (no time bound
        // asserted; 600 tries is minutes on any machine).
        var announced = false
        for _ in 0..<600 where !announced {
            _ = try await cast.request(store)
            announced = heard.withLock { $0 } > 0
            if !announced { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(announced, "appended events are announced again after the observation failed")
        observation.cancel()
        await store.close()
    }
}
