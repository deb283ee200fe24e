import Foundation
import RideBeaconTesting
import Testing

/// Issue 37, point 3: `passenger follow` said nothing through 83 s of server outage and nothing
/// when it came back. Now the loss is said once and the return once, in her language, and the
/// ride's news still reaches her after it.
@Suite("passenger follow: an outage and the return are said", .tags(.process), .timeLimit(.minutes(3)))
struct FollowOutageCLITests {
    @Test(arguments: [("en", "Cannot reach the ride service, retrying.", "Ride service reached."),
                      ("es", "No se puede contactar con el servicio de viajes; reintentando.", "Servicio de viajes disponible de nuevo.")])
    func theOutageAndTheReturnAreSaidOnceEach(language: String, lost: String, back: String) async throws {
        let service = try await RideServiceFixture()
        let rideID = try await FollowGuideCLITests.acceptedRide(service)
        let relay = try await TCPRelay(port: service.port)
        let environment = service.environment(token: service.passengerToken, server: "http://127.0.0.1:\(relay.port)")
        let follow = try BackgroundProcess(["passenger", "follow", rideID, "--radio", "none", "--audio-out", "none", "--no-notifications",
                                            "--language", language],
                                           environment: environment)
        defer { follow.stop() }
        #expect(await follow.wait { out, _ in out.contains("Ben") }, "\(follow.stdout)\n\(follow.stderr)")
        // Her stream is open once the server counts a listener; a moment is enough on any machine.
        try await Task.sleep(for: .seconds(1))
        #expect(!follow.stdout.contains(lost))

        await relay.goDown()
        #expect(await follow.wait { out, _ in out.contains(lost) }, "the loss is said: \(follow.stdout)\n\(follow.stderr)")
        try await Task.sleep(for: .seconds(3))   // several retries fail meanwhile
        relay.comeUp()
        #expect(await follow.wait { out, _ in out.contains(back) }, "the return is said: \(follow.stdout)\n\(follow.stderr)")
        #expect(follow.stdout.components(separatedBy: lost).count == 2, "said once, not per retry: \(follow.stdout)")
        #expect(follow.stdout.components(separatedBy: back).count == 2)

        // The ride's news still comes, after the return.
        #expect(try await service.post("/v1/rides/\(rideID)/arrive", as: service.driverToken).0 == 200)
        #expect(await follow.wait { out, _ in out.range(of: back).map { out[$0.upperBound...].contains("Ben") } ?? false },
                "\(follow.stdout)")
        await relay.stop()
    }
}
