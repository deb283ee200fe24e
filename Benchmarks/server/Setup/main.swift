import Foundation
import RideServer
import RideStore

// Seeds a database for the ride server benchmark (Benchmarks/server/run.sh): one passenger,
// one driver, one dispatcher with tokens, and N active rides. Prints shell assignments the
// script evals: tokens and the id of one ride to GET.
//
//   ServerBenchmarkSetup --database sqlite:/tmp/x.sqlite --rides 10000

func argument(_ name: String, default value: String) -> String {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
    return arguments[index + 1]
}

// In a function, not at top level: top-level variables are main-actor state, which the
// concurrent writers below could not share.
func seed() async throws {
    let location = argument("--database", default: "sqlite:./bench.sqlite")
    let count = Int(argument("--rides", default: "10000")) ?? 10_000
    let store = try await StoreLocation.open(location)

    func member(_ role: Role, _ name: String, vehicle: String? = nil) async throws -> (Account, String) {
        let account = try await store.createAccount(NewAccount(role: role, displayName: name, vehicle: vehicle))
        let secret = APITokenSecret()
        _ = try await store.addToken(accountID: account.id, secretHash: secret.hash)
        return (account, secret.text)
    }

    let (passenger, passengerToken) = try await member(.passenger, "Ana")
    let (driver, driverToken) = try await member(.driver, "Ben", vehicle: "blue Toyota Prius")
    let (_, dispatcherToken) = try await member(.dispatcher, "Dot")

    // Eight writers at a time: PostgreSQL takes them in parallel, SQLite queues them.
    let started = ContinuousClock.now
    let rideIDs = try await withThrowingTaskGroup(of: [String].self) { group in
        for worker in 0..<8 {
            group.addTask {
                var ids: [String] = []
                for _ in stride(from: worker, to: count, by: 8) {
                    let request = try await store.createRideRequest(
                        NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Central Station"),
                        passengerID: passenger.id, idempotency: nil)
                    let ride = try await store.accept(requestID: request.id, driverID: driver.id,
                                                      rideKey: Data((0..<32).map { _ in UInt8.random(in: 0...255) }), idempotency: nil)
                    ids.append(ride.id)
                }
                return ids
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
    let elapsed = ContinuousClock.now - started
    FileHandle.standardError.write(Data("seeded \(rideIDs.count) active rides in \(elapsed)\n".utf8))
    print("PASSENGER_TOKEN=\(passengerToken)")
    print("DRIVER_TOKEN=\(driverToken)")
    print("DISPATCHER_TOKEN=\(dispatcherToken)")
    print("RIDE_ID=\(rideIDs[rideIDs.count / 2])")
    await store.close()
}

try await seed()
