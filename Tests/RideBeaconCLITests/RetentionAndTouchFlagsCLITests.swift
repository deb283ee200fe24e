import Foundation
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

@Suite("ridebeacon admin purge-locations and serve's touch flags", .tags(.process), .timeLimit(.minutes(2)))
struct RetentionAndTouchFlagsCLITests {
    @Test func purgeLocationsErasesFinishedRidesPastRetentionOnly() async throws {
        let database = try temporaryDatabase()
        let store = try await StoreLocation.open(database, operationTimeout: StoreKind.testOperationTimeout)
        let passenger = try await store.createAccount(NewAccount(role: .passenger, displayName: "Ana"))
        let finished = try await store.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"),
                                                          passengerID: passenger.id, idempotency: nil)
        _ = try await store.cancelRideRequest(id: finished.id, by: passenger.id, idempotency: nil)
        await store.close()

        // Withdrawn just now: a 1-day retention keeps it.
        let kept = try await CLI.run(["admin", "purge-locations", "--older-than-days", "1", "--database", database])
        #expect(kept.status == 0 && kept.stdout == "0\n")
        // Age the request's history by two days, as if it ended then.
        let path = String(database.dropFirst("sqlite:".count))
        let aged = try SQLiteStore(path: path)
        try await aged.write { db in try db.execute(sql: "UPDATE rideEvent SET at = at - 2 * 86400") }
        await aged.close()
        let purged = try await CLI.run(["admin", "purge-locations", "--older-than-days", "1", "--database", database])
        #expect(purged.status == 0 && purged.stdout == "1\n")
        let reopened = try await StoreLocation.open(database, operationTimeout: StoreKind.testOperationTimeout)
        #expect(try await reopened.rideRequest(id: finished.id)?.pickup == "")
        await reopened.close()

        let bad = try await CLI.run(["admin", "purge-locations", "--older-than-days", "0", "--database", database])
        #expect(bad.status != 0 && bad.stderr.contains("--older-than-days must be 1 to 3650"))
    }

    @Test func serveRefusesBadTouchAndLimitSettingsInOneLine() async throws {
        let database = try temporaryDatabase()
        let cases: [([String], String)] = [
            (["--touch-policy", "driver"], "--touch-policy must be mutual or passenger"),
            (["--identity-period", "5"], "--identity-period must be 10 to 900"),
            (["--location-retention-days", "0"], "--location-retention-days must be 1 to 3650"),
            (["--touch-proofs-per-minute", "0"], "--touch-proofs-per-minute must be 1 to 100000"),
            (["--threads", "fibers"], "--threads must be event-loops or swift-pool"),
        ]
        for (flags, message) in cases {
            let result = try await CLI.run(["serve", "--port", "0", "--database", database] + flags)
            #expect(result.status != 0 && result.stderr.contains(message), "\(flags): \(result.stderr)")
        }
    }
}
