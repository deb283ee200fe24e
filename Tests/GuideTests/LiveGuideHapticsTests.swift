import BeaconCore
import Foundation
@testable import Guide
import GuideAudio
import TestSupport
import RideSession
import Synchronization
import Testing

/// `LiveGuide`'s vibrations (issue 26): the same rig as `LiveGuideTests` (scripted radio,
/// in-memory ride service, virtual clock, silent player), the haptic events recorded in order.
@Suite("LiveGuide haptics")
struct LiveGuideHapticsTests {
    final class Felt: HapticOutput {
        private let events = Mutex<[HapticEvent]>([])
        func trigger(_ event: HapticEvent) { events.withLock { $0.append(event) } }
        var all: [HapticEvent] { events.withLock { $0 } }
    }

    @Test("arrival, then pulses quickening on the way in, closer, very close, the touch and the confirmation, in that order")
    func aGuidedApproachIsFelt() async throws {
        let rig = LiveGuideTests.Rig()
        let felt = Felt()
        var guide = rig.guide()
        guide.haptics = felt
        let run = Task { await guide.run() }
        #expect(await eventually { rig.radio.scanning })
        await rig.walk(seconds: 8) { t in max(1, 12 - 1.5 * t) }
        await rig.walk(seconds: 3) { t in max(0.02, 1 - 0.5 * t) }
        await rig.walk(seconds: 3) { _ in 0.02 }
        let slot = LiveGuideTests.identity.slot(at: LiveGuideTests.start)
        let driverSaw = TouchObservation(identity: LiveGuideTests.identity.identity(of: .passenger, slot: slot), slot: slot,
                                         peakFilteredRSSI: -30, samples: 20, unixTime: rig.clock.unixTime,
                                         firstUnixTime: LiveGuideTests.start + 10)
        _ = await rig.service.driver.submitProof(driverSaw, rideID: "ride-1")
        await rig.walk(seconds: 0.5) { _ in 0.02 }
        #expect(await eventually { felt.all.contains(.touch) })
        rig.press.yield(.confirm)
        await rig.walk(seconds: 0.5) { _ in 0.02 }
        #expect(await run.value == .confirmed)

        let events = felt.all
        #expect(events.first == .arrived)
        #expect(events.last == .confirmed)
        #expect(events.filter { $0 == .pulse }.count > 10)
        for event in [HapticEvent.closer, .veryClose, .touch] { #expect(events.contains(event), "no \(event): \(events)") }
        let touch = try #require(events.firstIndex(of: .touch))
        #expect(events.firstIndex(of: .veryClose)! < touch)
        #expect(!events[(touch + 1)...].contains(.pulse), "the pulse stops at the touch, as its sound does")
    }
}
