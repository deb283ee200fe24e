import BeaconCore
import Foundation
import RideBeaconTesting
import Testing

/// Issue 37, point 8, through the process and the real service: her ride word confirms the
/// ride and `driver arrive` says so after "Ride confirmed."; an operator's confirmation is
/// told as the ride service's. Read from the ride's own `confirmed` event.
@Suite("driver arrive says how the ride was confirmed", .tags(.process), .timeLimit(.minutes(3)))
struct DriverConfirmationWayCLITests {
    @Test func herRideWordReachesTheDriversDevice() async throws {
        let service = try await RideServiceFixture()
        let rideID = try await DriverLocatorCLITests.acceptedRide(service)
        let arrive = try BackgroundProcess(["driver", "arrive", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", "none"],
                                           environment: service.environment(token: service.driverToken), interactive: true)
        defer { arrive.stop() }
        #expect(await arrive.wait { out, _ in out.contains("Arrived. Ride \(rideID) for Ana.") }, "\(arrive.stdout)\n\(arrive.stderr)")
        let keyText = try #require(try await service.rideJSON(rideID)["key"] as? String)
        let key = try #require(Data(base64Encoded: keyText))
        let word = RideWord.phrase(rideKey: key)
        let (status, _) = try await service.post("/v1/rides/\(rideID)/ride-word", json: #"{"word": "\#(word)"}"#, as: service.passengerToken)
        #expect(status == 200)
        #expect(await arrive.exitStatus() == 0, "\(arrive.stderr)")
        #expect(arrive.stdout.contains("Ride confirmed.\nAna confirmed the ride with the ride word.\n"), "\(arrive.stdout)")
    }

    @Test func anOperatorsConfirmationIsTheRideServices() async throws {
        let service = try await RideServiceFixture()
        let rideID = try await DriverLocatorCLITests.acceptedRide(service)
        let arrive = try BackgroundProcess(["driver", "arrive", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", "none"],
                                           environment: service.environment(token: service.driverToken), interactive: true)
        defer { arrive.stop() }
        #expect(await arrive.wait { out, _ in out.contains("Arrived. Ride \(rideID) for Ana.") }, "\(arrive.stdout)\n\(arrive.stderr)")
        let confirmed = try await CLI.run(["admin", "confirm-ride", rideID, "--database", service.database])
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(await arrive.exitStatus() == 0, "\(arrive.stderr)")
        #expect(arrive.stdout.contains("Ride confirmed.\nThe ride service confirmed the ride.\n"), "\(arrive.stdout)")
        #expect(!arrive.stdout.contains("Ana confirmed"), "\(arrive.stdout)")
    }
}
