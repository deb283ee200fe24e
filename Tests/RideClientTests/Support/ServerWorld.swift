import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RideServer
import RideStore
import RideBeaconTesting

/// The real ride server on a temp SQLite store, with one account of each role, served over
/// real HTTP on a loopback port. Tests talk to it through `RideServiceClient`.
struct ServerWorld: Sendable {
    struct Member: Sendable {
        let id: String
        let token: String
    }

    let store: any Store
    let passenger: Member
    let otherPassenger: Member
    let driver: Member
    let dispatcher: Member

    static func make() async throws -> ServerWorld {
        let store = try await StoreKind.sqlite.makeStore(prefix: "rideclient").store
        func member(_ role: Role, _ name: String, vehicle: String? = nil) async throws -> Member {
            let account = try await store.createAccount(NewAccount(role: role, displayName: name, vehicle: vehicle))
            let secret = APITokenSecret()
            _ = try await store.addToken(accountID: account.id, secretHash: secret.hash)
            return Member(id: account.id, token: secret.text)
        }
        return ServerWorld(store: store,
                           passenger: try await member(.passenger, "Ana"),
                           otherPassenger: try await member(.passenger, "Bea"),
                           driver: try await member(.driver, "Ben", vehicle: "blue Prius"),
                           dispatcher: try await member(.dispatcher, "Dot"))
    }

    /// Runs `body` with the server listening on a loopback port.
    func withServer(_ body: @escaping @Sendable (_ port: Int) async throws -> Void) async throws {
        var configuration = RideServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.events.heartbeatInterval = .milliseconds(300)
        configuration.events.pollInterval = .milliseconds(200)
        var logger = Logger(label: "rideclient.test")
        logger.logLevel = .critical
        let app = RideServer.makeApplication(store: store, configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            guard let port = client.port else { throw ServerWorldError("the live test server has no port") }
            try await body(port)
        }
    }

    /// What `ridebeacon admin confirm-ride` does: the operator's override, straight in the store.
    func confirmAsOperator(rideID: String) async throws {
        _ = try await store.transition(rideID: rideID, to: .confirmed, by: "operator", detail: "test", idempotency: nil)
    }

    /// Changes the ride without going through the client, as another device would.
    func cancelAsOperator(rideID: String) async throws {
        _ = try await store.transition(rideID: rideID, to: .cancelled, by: "operator", detail: "test", idempotency: nil)
    }

    func rideRequestCount(passengerID: String) async throws -> Int {
        try await store.rideRequests(passengerID: passengerID).count
    }

    func close() async { await store.close() }
}

struct ServerWorldError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
