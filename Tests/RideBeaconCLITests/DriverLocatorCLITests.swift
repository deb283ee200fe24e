import AsyncHTTPClient
import Foundation
import GuideAudio
import RideBeaconTesting
import RideStore
import Testing

/// Issue 22, end to end over HTTP (`serve`, `passenger guide`, `driver arrive` as processes):
/// the passenger's request reaches the driver's device, which tells the driver in words what to
/// do; the driver's one key (or the tick's playback) is the `locator_answered` event; the
/// passenger hears of the sound only after it, and "cannot" on n or when nothing comes in 10 s.
@Suite("driver arrive: a sound the street can hear", .tags(.process), .timeLimit(.minutes(4)))
struct DriverLocatorCLITests {
    static func requestLocator(_ service: RideServiceFixture, _ rideID: String) async throws -> UInt {
        var request = HTTPClientRequest(url: "\(service.url)/v1/rides/\(rideID)/locator")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(service.passengerToken)")
        return try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code
    }

    static func acceptedRide(_ service: RideServiceFixture) async throws -> String {
        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return try await service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `locator_answered` events' sounds, in order.
    static func answers(_ service: RideServiceFixture, _ rideID: String) async throws -> [String] {
        try await service.events(rideID).filter { $0.kind == .locatorAnswered }.compactMap(\.detail)
    }

    /// Polls the history until `count` answers are there (bounded by the suite's time limit): on
    /// PostgreSQL an event reaches the history through the sequencing run, so a client can hear
    /// it live a moment before a read of the history shows it.
    static func waitForAnswers(_ service: RideServiceFixture, _ rideID: String, count: Int = 1) async throws {
        var tries = 0
        while try await answers(service, rideID).count < count, tries < 300 {
            tries += 1
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Near with only the device allowed: the device ticks into the WAV, and only once it did is
    /// the answer `device`; the ticks end with the ride.
    @Test func theDevicesTickIsAnsweredOnlyOnceItPlayed() async throws {
        let service = try await RideServiceFixture()
        let rideID = try await Self.acceptedRide(service)
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wav = directory.appendingPathComponent("car.wav").path
        let arrive = try BackgroundProcess(["driver", "arrive", "--verbose", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", wav,
                                            "--locator-sounds", "device"],
                                           environment: service.environment(token: service.driverToken))
        defer { arrive.stop() }
        #expect(await arrive.wait { _, err in err.contains("advertising driver identity") }, "\(arrive.stderr)")
        #expect(!FileManager.default.fileExists(atPath: wav), "no audio is opened before a request")

        #expect(try await Self.requestLocator(service, rideID) == 202)
        #expect(await arrive.wait { out, _ in out.contains("Ana is looking for the car. Open the window: this device is ticking.") },
                "\(arrive.stdout)\n\(arrive.stderr)")
        try await Self.waitForAnswers(service, rideID)
        #expect(try await Self.answers(service, rideID) == ["device"])
        // Let a few seconds of ticks play, bounded generously.
        for _ in 0..<600 {
            let size = (try? FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int) ?? 0
            if size > 44 + 2 * AudioFormat.sampleRate * 12 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let cancelled = try await service.run(["passenger", "cancel", rideID], as: service.passengerToken)
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(await arrive.exitStatus() == 1, "\(arrive.stderr)")

        let audio = try WAVFile.decode(try Data(contentsOf: URL(fileURLWithPath: wav)))
        let loud = PCMAnalysis.soundingSpans(audio.samples.map { abs(Int($0)) > Int(0.8 * Double(Int16.max)) ? $0 : 0 },
                                             threshold: 0.05, bridging: 0.005)
        #expect(loud.count >= 3, "\(loud.count) ticks in \(audio.duration) s of audio")
        let speech = PCMAnalysis.soundingSpans(Array(audio.samples[..<(loud.first?.lowerBound ?? 0)]))
        #expect(!speech.isEmpty, "the instruction is spoken before the ticks")
    }

    /// No audio output: the tick does not play, so the answer is `none`, never `device`.
    @Test func silenceIsNeverAnnouncedAsASound() async throws {
        let service = try await RideServiceFixture()
        let rideID = try await Self.acceptedRide(service)
        let arrive = try BackgroundProcess(["driver", "arrive", "--verbose", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", "none",
                                            "--locator-sounds", "device"],
                                           environment: service.environment(token: service.driverToken))
        defer { arrive.stop() }
        #expect(await arrive.wait { _, err in err.contains("advertising driver identity") }, "\(arrive.stderr)")
        #expect(try await Self.requestLocator(service, rideID) == 202)
        #expect(await arrive.wait { out, _ in out.contains("This device cannot play its tick") }, "\(arrive.stdout)\n\(arrive.stderr)")
        try await Self.waitForAnswers(service, rideID)
        #expect(try await Self.answers(service, rideID) == ["none"])
    }

    /// Both commands, on each store: `s` in the guide → the driver is asked for two taps on the
    /// horn → `y` → "Ben is sounding the horn"; then `n` → "Ben cannot make a sound now"; then
    /// the escalation ladder asks his phone, which ticks by itself (here it cannot play: said so).
    /// No answer at all is the ladder's `EscalationGuideTests`.
    @Test(arguments: StoreKind.available)
    func requestAnswerSentenceTheCannotPathAndTheLadder(kind: StoreKind) async throws {
        let service = try await RideServiceFixture(kind: kind)
        let rideID = try await Self.acceptedRide(service)
        let guide = try BackgroundProcess(["passenger", "guide", "--radio", "sim", "--audio-out", "none", "--rate", "200", "--compass", "off"],
                                          environment: service.environment(token: service.passengerToken), interactive: true)
        defer { guide.stop() }
        let arrive = try BackgroundProcess(["driver", "arrive", "--verbose", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", "none"],
                                           environment: service.environment(token: service.driverToken), interactive: true)
        defer { arrive.stop() }
        #expect(await guide.wait { out, _ in out.contains("Your driver has arrived.") }, "\(guide.stdout)\n\(guide.stderr)")
        func count(_ text: String, in output: String) -> Int { output.components(separatedBy: text).count - 1 }
        let horn = "Ana is looking for the car. Give two short taps on the horn, then press y within 10 seconds; n if you can't."

        guide.type("s\n")
        #expect(await guide.wait { out, _ in out.contains("Asking Ben for a sound.") }, "\(guide.stdout)\n\(guide.stderr)")
        #expect(await arrive.wait { out, _ in out.contains(horn) }, "\(arrive.stdout)\n\(arrive.stderr)")
        #expect(!guide.stdout.contains("Ben is sounding the horn"), "not promised before the driver answers")
        arrive.type("y\n")
        #expect(await guide.wait { out, _ in out.contains("Ben is sounding the horn. Walk towards the sound.") }, "\(guide.stdout)\n\(guide.stderr)")
        try await Self.waitForAnswers(service, rideID)
        #expect(try await Self.answers(service, rideID) == ["horn"])

        // "Can't": after the server's 10 s between requests. His phone is what the ladder asks
        // next (issue 37, point 4), so no turn is promised with it.
        try await Task.sleep(for: .seconds(10.5))
        guide.type("s\n")
        #expect(await arrive.wait { out, _ in count(horn, in: out) == 2 }, "\(arrive.stdout)\n\(arrive.stderr)")
        arrive.type("n\n")
        let cannot = "Ben cannot make a sound now."
        #expect(await guide.wait { out, _ in out.contains(cannot) }, "\(guide.stdout)\n\(guide.stderr)")
        try await Self.waitForAnswers(service, rideID, count: 2)
        // The first two: on a loaded machine the ladder's next rung (below) can already have
        // answered by the time the history is read.
        let firstTwo = Array(try await Self.answers(service, rideID).prefix(2))
        #expect(firstTwo == ["horn", "none"], "\(firstTwo)")

        // The ladder's next rung, by itself once the server's interval allows: his phone, whose
        // device ticks without him (not the horn asked of him a third time). With --audio-out
        // none the tick cannot play: the answer is none and she is told so, never that it ticks.
        #expect(await guide.wait(seconds: 40) { out, _ in out.contains("Asking Ben's phone for a sound.") }, "\(guide.stdout)\n\(guide.stderr)")
        #expect(await arrive.wait { out, _ in out.contains("Ana is looking for the car. Open the window: this device is ticking.") },
                "\(arrive.stdout)\n\(arrive.stderr)")
        try await Self.waitForAnswers(service, rideID, count: 3)
        #expect(try await Self.answers(service, rideID) == ["horn", "none", "none"])
        #expect(await guide.wait { out, _ in count("Ben cannot make a sound now", in: out) == 2 }, "\(guide.stdout)\n\(guide.stderr)")
        #expect(count(horn, in: arrive.stdout) == 2, "\(arrive.stdout)")
        #expect(!guide.stdout.contains("Ben's phone is ticking"), "\(guide.stdout)")
        #expect(count("Ben is sounding the horn", in: guide.stdout) == 1)

        // Part 2 and 5: the driver's keys reach the passenger's guide through the server.
        arrive.type("c\n")
        #expect(await guide.wait { out, _ in out.contains("Ben is walking to you. Stay where you are.") }, "\(guide.stdout)\n\(guide.stderr)")
        arrive.type("x\n")
        #expect(await guide.wait { out, _ in out.contains("Your car is across the street. Stay on the pavement; Ben is coming to your side.") },
                "\(guide.stdout)\n\(guide.stderr)")
        #expect(arrive.stdout.contains("Cross at the nearest crossing or lights"), "only the driver's device is told where to cross")
        #expect(!guide.stdout.contains("Cross at"), "\(guide.stdout)")
        let kinds = try await service.events(rideID).map(\.kind)
        #expect(kinds.contains(.driverComing) && kinds.contains(.carAcross))
    }
}
