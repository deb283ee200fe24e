import BeaconCore
import Foundation
@testable import Guide
import GuideAudio
import RadioCore
import SessionDoubles
import TestSupport
import RideSession
import Testing

/// What the live guide puts on the air (issues 36 and 34): nothing before the driver arrives,
/// a ride's advertisement from then on, and fast advertising in the last metre.
@Suite("LiveGuide's own advertisement")
struct LiveGuideAdvertisingTests {
    static func started(_ radio: ScriptedRadio) -> Bool {
        radio.calls.contains { if case .startAdvertising = $0 { true } else { false } }
    }

    @Test("a waiting passenger advertises nothing; her beacon goes on the air when the driver arrives")
    func advertisesOnlyFromArrival() async throws {
        let clock = VirtualClock(unixTime: LiveGuideTests.start)
        let radio = ScriptedRadio(clock: clock)
        let service = InMemoryRideService(rideID: "ride-1", identity: LiveGuideTests.identity, state: .accepted, clock: clock)
        let (keys, _) = AsyncStream<GuideKey>.makeStream()
        let player = LiveCuePlayer(speech: nil, sink: NullSink(), log: { _ in })
        var guide = LiveGuide(ride: LiveGuideTests.ride, alreadyArrived: false, verbosity: .brief, radio: radio,
                              service: service.passenger, clock: clock, player: player, keys: keys, log: { _ in })
        guide.dutyCycling = false
        let run = Task { await guide.run() }
        // Minutes of waiting (the tick runs, the scan duty-cycles): nothing on the air.
        for _ in 0..<200 {
            clock.advance(by: 0.5)
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(!Self.started(radio), "advertised before arrival: \(radio.calls)")
        #expect(service.move(to: .arrived))
        #expect(await eventually { Self.started(radio) })
        let slot = LiveGuideTests.identity.slot(at: clock.unixTime)
        #expect(radio.advertised == LiveGuideTests.identity.identity(of: .passenger, slot: slot).beacon(measuredPower: -59))
        #expect(radio.interval == 100)
        run.cancel()
        #expect(service.move(to: .cancelled))
        clock.advance(by: 1)
        _ = await run.value
    }

    @Test("the last metre ('very close', or 'hold the phones together') puts her beacon at 20 ms; the bounded time after, back at 100 ms")
    func veryCloseHurries() async throws {
        let rig = LiveGuideTests.Rig()
        let run = Task { await rig.guide().run() }
        #expect(await eventually { rig.radio.scanning && rig.radio.advertised != nil })
        #expect(rig.radio.interval == 100)
        await rig.walk(seconds: 6) { _ in 8 }
        #expect(!rig.radio.calls.contains(.setAdvertisingInterval(20)), "fast before the last metre")
        // In as `LiveGuideTests.touchToConfirmation` walks, to "Hold the phones together."
        await rig.walk(seconds: 4) { _ in 1 }
        await rig.walk(seconds: 3) { t in max(0.02, 1 - 0.5 * t) }
        await rig.walk(seconds: 3) { _ in 0.02 }
        #expect(await eventually { rig.radio.interval == 20 }, "log: \(rig.log.all)")
        // Bounded: `hurrySeconds` (15 s) after entering the last metre, the normal interval,
        // though she is still there (the driver's device has not felt it: no new entry).
        await rig.walk(seconds: IdentityAdvertiser.hurrySeconds + 1) { _ in 0.02 }
        #expect(await eventually { rig.radio.interval == 100 })
        #expect(rig.radio.calls.filter { $0 == .setAdvertisingInterval(20) || $0 == .setAdvertisingInterval(100) }.last
                == .setAdvertisingInterval(100))
        #expect(rig.service.move(to: .cancelled))
        await rig.walk(seconds: 0.5) { _ in 8 }
        _ = await run.value
    }
}
