import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RideServer
import RideStore
import TestSupport

/// Someone with an account and a working token.
public struct Member: Sendable {
    public let account: Account
    public let token: String
    public var id: String { account.id }

    public init(account: Account, token: String) {
        self.account = account
        self.token = token
    }
}

/// The one "server plus accounts" fixture of the in-process tests: a fresh database (SQLite, or
/// PostgreSQL under `make test`) with one account of every role and spares, each with a working
/// token, and the real ride server built on it — served in memory or on a loopback port.
/// (`LiveServer` is the same for a `ridebeacon serve` process.)
///
/// ```swift
/// let world = try await World.make(.sqlite)
/// try await world.app().test(.live) { client in … as: world.passenger … }
/// ```
public struct World: Sendable {
    public let store: any Store
    public let location: String
    public let admin: Member
    public let passenger: Member
    public let otherPassenger: Member
    public let driver: Member
    public let otherDriver: Member
    public let dispatcher: Member

    public static func make(_ kind: StoreKind) async throws -> World {
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

    public static func token(for account: Account, in store: any Store) async throws -> Member {
        let secret = APITokenSecret()
        _ = try await store.addToken(accountID: account.id, secretHash: secret.hash)
        return Member(account: account, token: secret.text)
    }

    public func newDriver(_ name: String) async throws -> Member {
        let account = try await store.createAccount(NewAccount(role: .driver, displayName: name, vehicle: "grey van"))
        return try await Self.token(for: account, in: store)
    }

    /// A server on this world's store (events fast enough for tests); `configure` adjusts the
    /// rest (touch policy, rate limits, the clock).
    public func app(store: (any Store)? = nil, events: EventHub.Configuration = .testing, logger: Logger = .quiet,
                    configure: (inout RideServerConfiguration) -> Void = { _ in }) -> RideServer.App {
        var configuration = RideServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.events = events
        configure(&configuration)
        return RideServer.makeApplication(store: store ?? self.store, configuration: configuration, logger: logger)
    }

    /// A ride request by `passenger` and its acceptance by `driver`, straight in the store.
    public func acceptedRide() async throws -> RideRecord {
        let request = try await store.createRideRequest(
            NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"), passengerID: passenger.id, idempotency: nil)
        return try await store.accept(requestID: request.id, driverID: driver.id, rideKey: Data(repeating: 9, count: 32), idempotency: nil)
    }
}

extension EventHub.Configuration {
    /// Heartbeats and polls fast enough for tests.
    public static var testing: Self {
        var configuration = Self()
        configuration.heartbeatInterval = .milliseconds(300)
        configuration.pollInterval = .milliseconds(200)
        return configuration
    }
}

extension Logger {
    /// Critical messages only: a test's server does not fill the output.
    public static var quiet: Logger {
        var logger = Logger(label: "ridebeacon.test")
        logger.logLevel = .critical
        return logger
    }
}

extension World {
    /// Runs `body` with this world's server listening on a loopback port (the clients' tests
    /// talk to it through `RideServiceClient`).
    public func withServer(_ body: @escaping @Sendable (_ port: Int) async throws -> Void) async throws {
        try await app().test(.live) { client in
            guard let port = client.port else { throw FixtureError("the live test server has no port") }
            try await body(port)
        }
    }

    /// What `ridebeacon admin confirm-ride` does: the operator's override, straight in the store.
    public func confirmAsOperator(rideID: String) async throws {
        _ = try await store.transition(rideID: rideID, to: .confirmed, by: "operator", detail: "test", idempotency: nil)
    }

    /// Changes the ride without going through a client, as another device would.
    public func cancelAsOperator(rideID: String) async throws {
        _ = try await store.transition(rideID: rideID, to: .cancelled, by: "operator", detail: "test", idempotency: nil)
    }

    public func close() async { await store.close() }
}
