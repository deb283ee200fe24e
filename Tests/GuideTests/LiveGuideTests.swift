import BeaconCore
import Foundation
@testable import Guide
import GuideAudio
import RadioCore
import SessionDoubles
import TestSupport
import RideSession
import Synchronization
import Testing

/// `LiveGuide` whole, in process and in virtual time: a scripted radio, the in-memory ride
/// service (the server's rules), a `VirtualClock`, a silent player. Asserted: what the guide
/// said, posted and put on the air, in order; never how long anything took.
@Suite("LiveGuide")
struct LiveGuideTests {
    static let start = 1_700_000_010.0
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 42, count: 32))
    static let ride = GuideRide(rideID: "ride-1", driverName: "Ben", vehicle: "blue Toyota Prius", identity: identity)

    /// Lines in order (the guide's log: every spoken sentence and every trouble).
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        @Sendable func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    struct Rig {
        let clock = VirtualClock(unixTime: LiveGuideTests.start)
        let radio: ScriptedRadio
        let service: InMemoryRideService
        let log = Lines()
        let keys: AsyncStream<GuideKey>
        let press: AsyncStream<GuideKey>.Continuation

        init() {
            radio = ScriptedRadio(clock: clock)
            service = InMemoryRideService(rideID: "ride-1", identity: LiveGuideTests.identity, clock: clock)
            (keys, press) = AsyncStream<GuideKey>.makeStream()
        }

        func guide() -> LiveGuide {
            let player = LiveCuePlayer(speech: nil, sink: NullSink(), log: { _ in })
            var guide = LiveGuide(ride: LiveGuideTests.ride, alreadyArrived: true, verbosity: .brief, radio: radio,
                                  service: service.passenger, clock: clock, player: player, keys: keys, log: log.append)
            guide.dutyCycling = false
            return guide
        }

        /// The driver's beacon at `distance` m (the ideal line: −59 dBm at 1 m, n = 2), 10 Hz
        /// for `seconds` of virtual time, the clock moving in the guide's 50 ms ticks.
        func walk(seconds: Double, distance: (Double) -> Double) async {
            let begin = clock.now
            var step = 0
            while clock.now < begin + seconds - 1e-9 {
                if step % 2 == 0 {
                    let t = clock.now - begin
                    let rssi = Int8((-59 - 20 * log10(max(0.01, distance(t)))).rounded())
                    let slot = LiveGuideTests.identity.slot(at: clock.unixTime)
                    radio.hear(LiveGuideTests.identity.identity(of: .driver, slot: slot).beacon(measuredPower: -59), rssi: rssi)
                }
                step += 1
                clock.advance(by: 0.05)
                // The guide's tasks take what arrived before the next step (what the test asserts
                // does not depend on it: inputs carry their own times).
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    @Test("walked in and held: 'hold the phones together' until the driver's device feels it too; Enter proves it and the ride is confirmed")
    func touchToConfirmation() async throws {
        let rig = Rig()
        let run = Task { await rig.guide().run() }
        #expect(await eventually { rig.radio.scanning })
        // The passenger's own identity is on the air.
        let slot = Self.identity.slot(at: Self.start)
        let ownBeacon = Self.identity.identity(of: .passenger, slot: slot).beacon(measuredPower: -59)
        #expect(await eventually {
            rig.radio.calls.first { if case .startAdvertising = $0 { true } else { false } } == .startAdvertising(ownBeacon)
        })

        await rig.walk(seconds: 4) { _ in 1 }
        await rig.walk(seconds: 3) { t in max(0.02, 1 - 0.5 * t) }
        await rig.walk(seconds: 3) { _ in 0.02 }
        #expect(await eventually { rig.log.all.contains("Hold the phones together.") })
        #expect(!rig.log.all.contains { $0.hasPrefix("Touch detected") }, "no touch before the driver's device feels it")

        // The driver's device felt it from the passenger's seventh second until now.
        let driverSaw = TouchObservation(identity: Self.identity.identity(of: .passenger, slot: slot), slot: slot,
                                         peakFilteredRSSI: -30, samples: 20, unixTime: rig.clock.unixTime, firstUnixTime: Self.start + 7)
        #expect(await rig.service.driver.submitProof(driverSaw, rideID: "ride-1") == .awaitingCounterpart)
        await rig.walk(seconds: 0.5) { _ in 0.02 }
        #expect(await eventually { rig.log.all.contains { $0.hasPrefix("Touch detected") } })

        rig.press.yield(.confirm)
        await rig.walk(seconds: 0.5) { _ in 0.02 }
        #expect(await run.value == .confirmed)

        let said = rig.log.all
        let holding = try #require(said.firstIndex(of: "Hold the phones together."))
        let touch = try #require(said.firstIndex { $0.hasPrefix("Touch detected") })
        #expect(holding < touch)
        // The service heard, in order: guiding started, the two proofs, guiding stopped.
        let calls = rig.service.calls.filter { if case .locatorRequested = $0 { false } else { true } }
        #expect(calls == [.guide(.started), .proof(.driver, .awaitingCounterpart), .proof(.passenger, .confirmed), .guide(.stopped)])
        #expect(rig.service.rideState == .confirmed)
        // The radio was left as found: advertising stopped, no scan running.
        #expect(rig.radio.calls.contains(.stopAdvertising))
        #expect(await eventually { !rig.radio.scanning })
    }

    @Test("the ride cancelled while guiding ends the guide without a proof; 'guide_stopped' is not posted for a cancelled ride")
    func cancelledWhileGuiding() async throws {
        let rig = Rig()
        let run = Task { await rig.guide().run() }
        #expect(await eventually { rig.radio.scanning })
        await rig.walk(seconds: 2) { _ in 8 }
        #expect(rig.service.move(to: .cancelled))
        await rig.walk(seconds: 0.5) { _ in 8 }
        #expect(await run.value == .cancelled)
        let calls = rig.service.calls.filter { if case .locatorRequested = $0 { false } else { true } }
        #expect(calls == [.guide(.started)])
    }

    @Test("a sighting is stamped with its arrival on the guide's clock, not when it is read")
    func sightingKeepsItsArrival() async throws {
        let clock = VirtualClock(unixTime: Self.start)
        let radio = ScriptedRadio(clock: clock)
        let (inputs, feed) = AsyncStream<GuideInput>.makeStream()
        let scanner = ScanControl(radio: radio, feed: feed, clock: clock, dutyCycle: (on: 2, off: 3)) { _ in }
        await scanner.set(.continuous)
        #expect(await eventually { radio.scanning })
        clock.advance(to: 5)
        let beacon = Self.identity.identity(of: .driver, slot: Self.identity.slot(at: Self.start)).beacon(measuredPower: -59)
        // Arrived at 1.25 s, read now (5 s).
        radio.hear(beacon, rssi: -61, at: 1.25)
        var iterator = inputs.makeAsyncIterator()
        guard case .sighting(let time, let unixTime, let rssi, let seen)? = await iterator.next() else {
            Issue.record("no sighting fed")
            return
        }
        #expect(abs(time - 1.25) < 1e-6)
        #expect(abs(unixTime - (Self.start + 1.25)) < 1e-6)
        #expect(rssi == -61 && seen == beacon)
        await scanner.set(.off)
    }

    @Test("a radio that cannot scan is said once, plainly, while it keeps failing; said again only after it worked in between")
    func scanErrorsAreSaidOnce() async throws {
        let clock = VirtualClock(unixTime: Self.start)
        let radio = ScriptedRadio(clock: clock)
        let said = Lines()
        let (_, feed) = AsyncStream<GuideInput>.makeStream()
        let scanner = ScanControl(radio: radio, feed: feed, clock: clock, dutyCycle: (on: 2, off: 3), report: said.append)
        let trouble = "The radio cannot scan for the car: adapter gone. Retrying."

        radio.failScans(RadioError("adapter gone"))
        await scanner.set(.dutyCycled)
        #expect(await eventually { said.all == [trouble] })
        // Three more windows fail the same way: nothing more is said.
        // Time moves in quarter seconds until the next window starts: a single jump could land
        // while the failed window's own timer is still registered, before the 3 s pause's.
        for _ in 0..<3 {
            let started = radio.calls.filter { $0 == .scanStarted }.count
            #expect(await clock.advance(by: 0.25) { radio.calls.filter { $0 == .scanStarted }.count > started })
        }
        #expect(said.all == [trouble])

        // The radio works again and hears something; then it fails again: said again, once.
        radio.failScans(nil)
        #expect(await clock.advance(by: 0.25) { radio.scanning })
        radio.hear(Self.identity.identity(of: .driver, slot: 1).beacon(measuredPower: -59), rssi: -70)
        // The stream hands over what it buffered before its failure.
        radio.failScans(RadioError("adapter gone"))
        #expect(await eventually { said.all == [trouble, trouble] })
        #expect(radio.calls.filter { $0 == .scanStarted }.count == 5)
        await scanner.set(.off)
    }
}
