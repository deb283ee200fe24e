import AsyncHTTPClient
import Foundation
import GuideAudio
import RideBeaconTesting
import Testing

/// `driver arrive` hears the passenger's locator request on the ride's event stream, tells the
/// driver why and what to do, and ticks into its audio output until the ride ends.
@Suite("driver arrive: the locator sound", .timeLimit(.minutes(3)))
struct DriverLocatorCLITests {
    static func requestLocator(_ service: RideServiceFixture, _ rideID: String) async throws -> UInt {
        var request = HTTPClientRequest(url: "\(service.url)/v1/rides/\(rideID)/locator")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(service.passengerToken)")
        return try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code
    }

    @Test func thePassengersRequestIsExplainedAndTicksIntoTheWAVUntilTheRideEnds() async throws {
        let service = try await RideServiceFixture()
        let requestID = try service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rideID = try service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wav = directory.appendingPathComponent("car.wav").path
        let arrive = try BackgroundProcess(["driver", "arrive", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", wav],
                                           environment: service.environment(token: service.driverToken))
        defer { arrive.stop() }
        #expect(await arrive.wait { _, err in err.contains("advertising driver identity") }, "\(arrive.stderr)")
        #expect(!FileManager.default.fileExists(atPath: wav), "no audio is opened before a request")

        #expect(try await Self.requestLocator(service, rideID) == 202)
        #expect(await arrive.wait { out, _ in
            out.contains("Your passenger is looking for the car: open the window, or step out to the kerb with the device.")
        }, "\(arrive.stdout)\n\(arrive.stderr)")
        // Let a few seconds of ticks play (the announcement comes first), bounded generously.
        for _ in 0..<600 {
            let size = (try? FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int) ?? 0
            if size > 44 + 2 * AudioFormat.sampleRate * 12 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let cancelled = try service.run(["passenger", "cancel", rideID], as: service.passengerToken)
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(await arrive.exitStatus() == 1, "\(arrive.stderr)")

        let audio = try WAVFile.decode(try Data(contentsOf: URL(fileURLWithPath: wav)))
        // The ticks are the only sound louder than speech ever peaks: count bursts above it.
        let loud = PCMAnalysis.soundingSpans(audio.samples.map { abs(Int($0)) > Int(0.8 * Double(Int16.max)) ? $0 : 0 },
                                             threshold: 0.05, bridging: 0.005)
        #expect(loud.count >= 3, "\(loud.count) ticks in \(audio.duration) s of audio")
        let speech = PCMAnalysis.soundingSpans(Array(audio.samples[..<(loud.first?.lowerBound ?? 0)]))
        #expect(!speech.isEmpty, "the announcement is spoken before the ticks")
    }

    /// Both commands together: the passenger's key `s` in `passenger guide` reaches `driver
    /// arrive` through the server; a second press within 10 s is told the car already ticks.
    @Test func keySInTheGuideMakesTheDriversDeviceTick() async throws {
        let service = try await RideServiceFixture()
        let requestID = try service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rideID = try service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let guide = try BackgroundProcess(["passenger", "guide", "--radio", "sim", "--audio-out", "none", "--rate", "200"],
                                          environment: service.environment(token: service.passengerToken), interactive: true)
        defer { guide.stop() }
        let arrive = try BackgroundProcess(["driver", "arrive", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", "none"],
                                           environment: service.environment(token: service.driverToken))
        defer { arrive.stop() }
        #expect(await guide.wait { out, _ in out.contains("Your driver has arrived.") }, "\(guide.stdout)\n\(guide.stderr)")
        guide.type("s\n")
        #expect(await guide.wait { out, _ in out.contains("The car is ticking. Walk towards the sound.") }, "\(guide.stdout)\n\(guide.stderr)")
        #expect(await arrive.wait { out, _ in out.contains("Your passenger is looking for the car") }, "\(arrive.stdout)\n\(arrive.stderr)")
        guide.type("s\n")
        #expect(await guide.wait { out, _ in out.contains("The car is already ticking. Walk towards the sound.") },
                "\(guide.stdout)\n\(guide.stderr)")
        #expect(arrive.stdout.components(separatedBy: "Your passenger is looking for the car").count == 2, "announced once")
    }
}
