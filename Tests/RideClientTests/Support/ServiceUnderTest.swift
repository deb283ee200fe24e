import BeaconCore
import Foundation
import RideBeaconTesting
import RideClient
import RideSession
import RideStore
import SessionDoubles
import Synchronization

/// An arrived ride on one service under the RideService contract: both people's `RideService`s
/// and what their devices know of the ride (its key's identities, its word). Times are the
/// machine's wall clock on every service, as the real server's are.
struct KerbRide: Sendable {
    let id: String
    let passenger: any RideService
    let driver: any RideService
    let identity: RotatingIdentity
    let word: String
    /// Cancels the ride as someone else would (the operator, a dispatcher).
    let cancel: @Sendable () async throws -> Void

    func service(of side: BeaconSide) -> any RideService { side == .passenger ? passenger : driver }

    /// What `side`'s device saw of the other side's beacon: its window `from...until` seconds
    /// from now (negative: in the past), in the slot of `until` moved by `slotOffset`;
    /// `beacon` is whose identity was seen (the other side's unless a test says otherwise).
    func observation(by side: BeaconSide, from: Double = 0, until: Double = 0, slotOffset: Int64 = 0,
                     beacon: BeaconSide? = nil) -> TouchObservation {
        let now = Date().timeIntervalSince1970
        let seen = beacon ?? (side == .driver ? .passenger : .driver)
        let slot = UInt64(Int64(identity.slot(at: now + until)) + slotOffset)
        return TouchObservation(identity: identity.identity(of: seen, slot: slot), slot: slot, peakFilteredRSSI: -30,
                                samples: 9, unixTime: now + until, firstUnixTime: now + from)
    }
}

/// The services RideSession's `RideService` contract holds for: the in-memory double the session
/// tests run on, and the real server through RideClient's `RideServiceClient` on each store
/// (PostgreSQL when RIDEBEACON_TEST_POSTGRES_URL is set, as `make test` sets it).
enum ServiceUnderTest: String, CaseIterable, Sendable, CustomStringConvertible {
    case inMemory = "the in-memory double"
    case serverOnSQLite = "the server on SQLite"
    case serverOnPostgreSQL = "the server on PostgreSQL"

    var description: String { rawValue }

    static var available: [Self] { StoreKind.available.contains(.postgres) ? allCases : [.inMemory, .serverOnSQLite] }

    /// Runs `body` on a fresh ride that has just arrived at the pickup.
    func withArrivedRide(_ body: @escaping @Sendable (KerbRide) async throws -> Void) async throws {
        switch self {
        case .inMemory: try await Self.inMemory(body)
        case .serverOnSQLite: try await Self.onServer(.sqlite, body)
        case .serverOnPostgreSQL: try await Self.onServer(.postgres, body)
        }
    }

    static let rideKey = [UInt8](repeating: 9, count: 32)

    private static func inMemory(_ body: @escaping @Sendable (KerbRide) async throws -> Void) async throws {
        let identity = try RotatingIdentity(rideKey: rideKey)
        let word = RideWord.phrase(rideKey: rideKey)
        let service = InMemoryRideService(rideID: "ride-1", identity: identity, state: .arrived, rideWord: word, clock: SystemClock())
        try await body(KerbRide(id: "ride-1", passenger: service.passenger, driver: service.driver, identity: identity, word: word,
                                cancel: { _ = service.move(to: .cancelled) }))
    }

    /// A ride accepted in the store (World's, key `rideKey`), arrived through the driver's
    /// client; each person talks to the server on a loopback port through their own client.
    private static func onServer(_ kind: StoreKind, _ body: @escaping @Sendable (KerbRide) async throws -> Void) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.withServer { port in
            let server = "http://127.0.0.1:\(port)"
            try await withRideServiceClient(server: server, token: world.passenger.token) { passenger in
                try await withRideServiceClient(server: server, token: world.driver.token) { driver in
                    _ = try await driver.arrive(ride.id)
                    let key = try await passenger.rideKey(ride.id)
                    try await body(KerbRide(id: ride.id, passenger: passenger, driver: driver, identity: try key.identity(),
                                            word: RideWord.phrase(rideKey: key.bytes),
                                            cancel: { try await world.cancelAsOperator(rideID: ride.id) }))
                }
            }
        }
        await world.close()
    }
}

/// Everything a ride's stream has brought so far, read on its own task until `stop()`.
final class UpdateLog: Sendable {
    private let updates = Mutex<[RideUpdate]>([])
    private let reader = Mutex<Task<Void, Never>?>(nil)

    init(_ stream: AsyncStream<RideUpdate>) {
        let task = Task {
            for await update in stream { self.updates.withLock { $0.append(update) } }
        }
        reader.withLock { $0 = task }
    }

    var all: [RideUpdate] { updates.withLock { $0 } }

    /// Whether an update `matches` has come, waiting for it (bounded, `eventually`).
    func saw(_ matches: @escaping @Sendable (RideUpdate) -> Bool) async -> Bool {
        await eventually { self.all.contains(where: matches) }
    }

    func stop() { reader.withLock { $0?.cancel() } }
}
