import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// Someone with an account and a working token.
struct Member: Sendable {
    let account: Account
    let token: String
    var id: String { account.id }
}

/// A database with one account of every role (and spares), and servers built on it.
struct World: Sendable {
    let store: any Store
    let location: String
    let admin: Member
    let passenger: Member
    let otherPassenger: Member
    let driver: Member
    let otherDriver: Member
    let dispatcher: Member

    static func make(_ kind: StoreKind) async throws -> World {
        let location = try await kind.makeDatabase(prefix: "rb_srv")
        let store = try await StoreLocation.open(location, operationTimeout: StoreKind.testOperationTimeout)
        func member(_ role: Role, _ name: String, vehicle: String? = nil) async throws -> Member {
            let account = try await store.createAccount(NewAccount(role: role, displayName: name, vehicle: vehicle))
            return try await Self.token(for: account, in: store)
        }
        return World(
            store: store, location: location,
            admin: try await member(.admin, "Root"),
            passenger: try await member(.passenger, "Ana"),
            otherPassenger: try await member(.passenger, "Bea"),
            driver: try await member(.driver, "Ben", vehicle: "blue Prius"),
            otherDriver: try await member(.driver, "Cy", vehicle: "red Golf"),
            dispatcher: try await member(.dispatcher, "Dot"))
    }

    static func token(for account: Account, in store: any Store) async throws -> Member {
        let secret = APITokenSecret()
        _ = try await store.addToken(accountID: account.id, secretHash: secret.hash)
        return Member(account: account, token: secret.text)
    }

    func newDriver(_ name: String) async throws -> Member {
        let account = try await store.createAccount(NewAccount(role: .driver, displayName: name, vehicle: "grey van"))
        return try await Self.token(for: account, in: store)
    }

    /// A server on this world's store (events fast enough for tests); `configure` adjusts the
    /// rest (touch policy, rate limits, the clock).
    func app(store: (any Store)? = nil, events: EventHub.Configuration = .testing, logger: Logger = .quiet,
             configure: (inout RideServerConfiguration) -> Void = { _ in }) -> RideServer.App {
        var configuration = RideServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.events = events
        configure(&configuration)
        return RideServer.makeApplication(store: store ?? self.store, configuration: configuration, logger: logger)
    }

    /// A ride request by `passenger` and its acceptance by `driver`, straight in the store.
    func acceptedRide() async throws -> RideRecord {
        let request = try await store.createRideRequest(
            NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"), passengerID: passenger.id, idempotency: nil)
        return try await store.accept(requestID: request.id, driverID: driver.id, rideKey: Data(repeating: 9, count: 32), idempotency: nil)
    }
}

extension EventHub.Configuration {
    static var testing: Self {
        var configuration = Self()
        configuration.heartbeatInterval = .milliseconds(300)
        configuration.pollInterval = .milliseconds(200)
        return configuration
    }
}

extension Logger {
    static var quiet: Logger {
        var logger = Logger(label: "ridebeacon.test")
        logger.logLevel = .critical
        return logger
    }
}
