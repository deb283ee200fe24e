import BeaconCore
import Foundation
import Guide
import GuideSimulation
import GuideAudio
import RideSession
import Testing

@Suite struct SimulationTests {
    static let ride = SimulatedRide.ride

    static func walk(seed: UInt64, audio: WalkAudio? = nil, verbosity: Verbosity = .full) async -> (WalkSummary, [String]) {
        var walk = GuidedWalk(ride: ride, configuration: GuidedWalk.Configuration(seed: seed, verbosity: verbosity))
        var cues: [String] = []
        let policy = MutualProofPolicy()
        let summary = await walk.run(unixTime: { SimulatedRide.base + $0 },
                                     onCue: { cue, _ in cues.append(cue.description); audio?.cue(cue) },
                                     onPulse: { interval, time in audio?.pulse(interval, at: time) },
                                     prove: { side, observation in policy.prove(side, observation) })
        audio?.finish()
        return (summary, cues)
    }

    @Test func theSameSeedGivesTheSameChannelAndTheSameWalk() async {
        func draws(_ seed: UInt64) -> [Int8?] {
            var rng = SeededRandom(seed: seed)
            var channel = ChannelModel(parameters: .random(&rng), rng: rng.fork())
            return (0..<200).map { channel.receive(at: Double($0) * 0.1, receiver: Point(x: 10 - Double($0) * 0.05, y: 2), facing: .pi) }
        }
        #expect(draws(9) == draws(9))
        #expect(draws(9) != draws(10))
        let first = await Self.walk(seed: 4), second = await Self.walk(seed: 4)
        #expect(first.0 == second.0)
        #expect(first.1 == second.1)
    }

    @Test func channelFallsWithDistanceAndWithTheBackTurned() {
        var rng = SeededRandom(seed: 1)
        var parameters = ChannelModel.Parameters.random(&rng)
        parameters.baseLoss = 0
        func mean(at distance: Double, facing: Double) -> Double {
            var channel = ChannelModel(parameters: parameters, rng: SeededRandom(seed: 2))
            let values = (0..<2000).compactMap { channel.receive(at: Double($0), receiver: Point(x: distance, y: 0), facing: facing) }
            return values.map(Double.init).reduce(0, +) / Double(values.count)
        }
        let towards = Double.pi  // the car is at the origin, west of the receiver
        #expect(mean(at: 2, facing: towards) > mean(at: 8, facing: towards) + 8)
        #expect(mean(at: 4, facing: towards) > mean(at: 4, facing: 0) + parameters.bodyLoss / 2)
        // Held together, the devices read the contact level a touch detector expects.
        #expect(mean(at: 0.02, facing: towards) > Calibration(model: .default).effectiveTouchRSSI)
    }

    @Test(arguments: [3, 4, 6, 8, 13] as [UInt64])
    func guidedWalksEndConfirmed(seed: UInt64) async throws {
        let (summary, cues) = await Self.walk(seed: seed)
        #expect(summary.confirmed, "seed \(seed): \(cues)")
        #expect(summary.secondsTo1m != nil && summary.secondsTo1m! <= summary.secondsToConfirm!)
        // Time to touch: the prompt, after reaching 1 m and before the confirmation (Enter, proofs).
        let touch = try #require(summary.secondsToTouch, "seed \(seed): no touch prompt timed")
        #expect(touch >= summary.secondsTo1m! && touch < summary.secondsToConfirm!)
        #expect(cues.last == "\"Ride confirmed. Your driver is Ben, blue Toyota Prius.\"")
        #expect(cues.contains("\"Touch detected. Press Enter to confirm your ride.\""))
    }

    /// The walk's audio, written to a WAV file and read back: every phrase that sounded holds
    /// speech (energy well above silence) and nothing that sounded overlaps anything else.
    @Test func walkAudioHasSpeechAndNothingOverlaps() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let audio = WalkAudio(speech: try EspeakSpeech.shared(), sink: try WAVFileSink(path: path))
        let (summary, _) = await Self.walk(seed: 13, audio: audio)
        #expect(summary.confirmed)
        let wav = try WAVFile.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        let sounded = audio.log.filter { $0.fate == .sounded }
        let phrases = sounded.filter { if case .speech = $0.kind { true } else { false } }
        #expect(phrases.count >= 4)
        #expect(phrases.contains { $0.kind == .speech("Ride confirmed. Your driver is Ben, blue Toyota Prius.") })
        let rate = Double(wav.sampleRate)
        for phrase in phrases {
            let from = Int(phrase.speechStart! * rate), to = min(wav.samples.count, Int(phrase.end! * rate))
            let slice = wav.samples[from..<to]
            let rms = (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, slice.count))).squareRoot()
            #expect(rms > 500, "\(phrase.kind) is near silence (rms \(rms))")
        }
        // The pulse is background: a cue cuts a sounding tick (the log keeps the tick's planned
        // end), so only cues are checked against each other.
        let cues = sounded.filter { $0.kind != .earcon(.pulse) }.sorted { $0.start! < $1.start! }
        #expect(cues.count > phrases.count)
        for (a, b) in zip(cues, cues.dropFirst()) {
            #expect(a.end! <= b.start! + 1e-6, "\(a.kind) overlaps \(b.kind)")
        }
        #expect(wav.duration >= summary.secondsToConfirm!)
    }

    /// Turn-to-find in the simulator: the walker turns on the spot with the phone at its chest
    /// (the calibrated channel's 10–15 dB body loss behind), and when told "Stop. The car is
    /// ahead of you." faces the car far better than at random (a random heading is 90° off on
    /// the median).
    @Test func turnToFindPointsTheWalkerAtTheCar() async {
        var offsets: [Double] = []
        for seed in 1...12 as ClosedRange<UInt64> {
            var configuration = GuidedWalk.Configuration(seed: seed)
            configuration.aids = .turn
            var walk = GuidedWalk(ride: Self.ride, configuration: configuration)
            let policy = MutualProofPolicy()
            _ = await walk.run(unixTime: { SimulatedRide.base + $0 }, onCue: { cue, moment in
                // The walker stops half a second (its reaction) after the phrase: 15° further round.
                if cue.description == "\"Stop. The car is ahead of you.\"" { offsets.append(abs(wrapAngle((moment.headingOffset + 15) * .pi / 180)) * 180 / .pi) }
            }, prove: { side, observation in policy.prove(side, observation) })
        }
        #expect(offsets.count >= 6, "turns ended with a stop: \(offsets.count)")
        let median = offsets.sorted()[offsets.count / 2]
        #expect(median <= 45, "median heading error after a stop \(median)° (\(offsets.map(Int.init)))")
    }
}
