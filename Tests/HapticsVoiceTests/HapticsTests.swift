import BeaconCore
import BlueZ
import FeedbackHaptics
import Foundation
import Guide
import GuideSimulation
import RideSession
import Synchronization
import TestSupport
import Testing

@Suite(.serialized, .tags(.process)) struct HapticsTests {
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 42, count: 32))
    static let ride = GuideRide(rideID: "ride-1", driverName: "Ben", vehicle: "blue Toyota Prius", identity: identity)
    static let base = 1_700_000_010.0

    /// A simulated walk guided with haptics only: every vibration goes to Debian's feedbackd on
    /// a private bus, which must receive them in the walk's order, know each event (the theme),
    /// answer each with its own id and end each (`FeedbackEnded`).
    @Test func aWalkGuidedByHapticsOnlyReachesFeedbackdInOrder() async throws {
        let daemon = try PrivateFeedbackd()
        defer { daemon.stop() }
        #expect(daemon.startedWithoutVibra)
        let haptics = try #require(await FeedbackdHaptics.open(address: daemon.address, say: { Issue.record("said: \($0)") }))

        var configuration = GuidedWalk.Configuration(seed: 5, startDistance: 15, verbosity: .full)
        configuration.haptics = .only
        var walk = GuidedWalk(ride: Self.ride, configuration: configuration)
        var felt: [HapticEvent] = []
        let policy = MutualProofPolicy()
        let summary = await walk.run(unixTime: { Self.base + $0 }, onCue: { _, _ in },
                                     onHaptic: { haptic, _ in
                                         felt.append(haptic.event)
                                         haptics.trigger(haptic.event)
                                     },
                                     prove: { side, observation in policy.prove(side, observation) })
        await haptics.flush()
        // FeedbackEnded follows each answer; wait (bounded) until all have come.
        for _ in 0..<100 where haptics.client.endedIDs.count < felt.count { try await Task.sleep(for: .milliseconds(50)) }
        let all = haptics.sent
        let endedIDs = haptics.client.endedIDs
        await haptics.close()

        #expect(summary.confirmed)
        #expect(summary.haptics?["arrived"] == 1)
        #expect(felt.first == .arrived)
        #expect(felt.last == .confirmed)
        for event in [HapticEvent.pulse, .closer, .veryClose, .touch] { #expect(felt.contains(event), "no \(event) felt") }
        // Touch before the confirmation, and nothing after it.
        #expect(felt.lastIndex(of: .touch)! < felt.lastIndex(of: .confirmed)!)
        #expect(all.count == felt.count)
        #expect(all.map(\.event) == felt)
        let ids = all.compactMap(\.id)
        #expect(ids.count == felt.count)
        #expect(Set(ids).count == ids.count)
        #expect(Set(endedIDs) == Set(ids))
        // What the daemon itself logged receiving, in order, and that its theme knew every event.
        #expect(daemon.events(from: "org.ridebeacon.Guide") == felt.map(\.feedbackEvent))
        #expect(daemon.unknownEvents.isEmpty)
    }

    /// From a cue to its D-Bus send (the call leaving for feedbackd) and to feedbackd's answer,
    /// at the guide's fastest pace (a tap every 50 ms, a 20 Hz tick): printed for BENCHMARKS.md
    /// ("Latency"), not asserted. Every event is answered with its own id either way.
    @Test func cueToFeedbackdLatencyIsPrinted() async throws {
        let daemon = try PrivateFeedbackd()
        defer { daemon.stop() }
        let haptics = try #require(await FeedbackdHaptics.open(address: daemon.address, say: { Issue.record("said: \($0)") }))
        for n in 0..<200 {
            haptics.trigger(n % 10 == 0 ? .closer : .pulse)
            try await Task.sleep(for: .milliseconds(50))
        }
        await haptics.flush()
        let sent = haptics.sent
        await haptics.close()
        #expect(sent.count == 200)
        #expect(Set(sent.compactMap(\.id)).count == 200)
        func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
        let toSend = sent.map { ms($0.called - $0.decided) }.sorted()
        let toAnswer = sent.map { ms($0.answered - $0.decided) }.sorted()
        func q(_ xs: [Double], _ p: Double) -> Double { xs[min(xs.count - 1, Int(p * Double(xs.count - 1)))] }
        print(String(format: "haptic latency (n=%d): cue -> D-Bus send median %.2f ms, p95 %.2f ms, max %.2f ms; cue -> feedbackd's answer median %.2f ms, p95 %.2f ms, max %.2f ms",
                     sent.count, q(toSend, 0.5), q(toSend, 0.95), toSend.last!, q(toAnswer, 0.5), q(toAnswer, 0.95), toAnswer.last!))
    }

    /// The pulse quickens as the walk nears the car: the gaps between pulses in the last
    /// third of the walk are shorter than in the first.
    @Test func thePulseQuickensWithTheDistance() async {
        var configuration = GuidedWalk.Configuration(seed: 5, startDistance: 15, verbosity: .full)
        configuration.haptics = .only
        var walk = GuidedWalk(ride: Self.ride, configuration: configuration)
        var pulses: [(time: Double, distance: Double)] = []
        let policy = MutualProofPolicy()
        _ = await walk.run(unixTime: { Self.base + $0 }, onCue: { _, _ in },
                           onHaptic: { haptic, moment in if haptic.event == .pulse { pulses.append((haptic.time, moment.trueDistance)) } },
                           prove: { side, observation in policy.prove(side, observation) })
        let far = zip(pulses, pulses.dropFirst()).filter { $0.0.distance > 8 }.map { $1.time - $0.time }
        let near = zip(pulses, pulses.dropFirst()).filter { $0.0.distance < 3 }.map { $1.time - $0.time }
        #expect(!far.isEmpty && !near.isEmpty)
        let median = { (xs: [Double]) in xs.sorted()[xs.count / 2] }
        #expect(median(near) < median(far))
    }

    /// Every vibration pattern the guide can ask for is in the shipped theme.
    @Test func theShippedThemeHasEveryEvent() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: PrivateFeedbackd.theme))
        let text = String(decoding: data, as: UTF8.self)
        for event in HapticEvent.allCases { #expect(text.contains("\"\(event.feedbackEvent)\""), "\(event.feedbackEvent) not in the theme") }
    }

    /// Without feedbackd on the bus the guide hears one plain sentence and goes on.
    @Test func missingFeedbackdIsSaidOncePlainly() async throws {
        let bus = try PrivateFeedbackd(startDaemon: false)
        defer { bus.stop() }
        let said = SaidLines()
        let haptics = await FeedbackdHaptics.open(address: bus.address, say: { said.add($0) })
        #expect(haptics == nil)
        #expect(said.lines == [FeedbackdHaptics.missingSentence])
    }

    /// `haptics` in the settings file: saved, read back, and a wrong value refused by name.
    @Test func hapticsIsASetting() throws {
        var settings = Settings.standard
        #expect(settings.haptics == .on)
        settings.haptics = .only
        let parsed = try Settings.parse(settings.encoded(), path: "settings.json")
        #expect(parsed.haptics == .only)
        #expect(throws: SettingsError.self) { try Settings.parse(Data(#"{"haptics": "loud"}"#.utf8), path: "s.json") }
        do { _ = try Settings.parse(Data(#"{"haptics": "loud"}"#.utf8), path: "s.json") } catch {
            #expect(error.description == #"s.json: haptics must be one of on, off, only, not "loud""#)
        }
    }
}

final class SaidLines: Sendable {
    private let stored = Mutex<[String]>([])
    func add(_ line: String) { stored.withLock { $0.append(line) } }
    var lines: [String] { stored.withLock { $0 } }
}
