import BeaconCore
import Foundation
import RadioCore
import SessionDoubles
import TestSupport
import RideSession
import Testing

/// `IdentityAdvertiser` in virtual time on a scripted radio: the ride's own slot boundaries,
/// the measured power of the power the radio reports, and the last metre's fast advertising
/// (issues 34 and 36). The radio side of each (addresses, intervals on air) is in BlueZTests.
@Suite("IdentityAdvertiser: offset boundaries, reported power, fast advertising")
struct IdentityAdvertiserPaceTests {
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 3, count: 32), period: 10)
    static let template = BeaconAdvertisement.ride(beacon: IBeacon(uuid: UUID(), major: 0, minor: 0, measuredPower: -59),
                                                   intervalMilliseconds: 100)

    static func replacements(_ radio: ScriptedRadio) -> Int {
        radio.calls.filter { if case .replaceAdvertisedBeacon = $0 { true } else { false } }.count
    }

    @Test("the identity changes at the ride's own boundaries (its offset), not at the wall clock's multiples of the period")
    func rotatesAtTheRidesOffset() async throws {
        let identity = Self.identity
        #expect(identity.offset > 0.5 && identity.offset < 9.5, "pick a key whose offset is away from the wall clock's boundary")
        // Start just after a wall-clock multiple of 10 s, before the ride's boundary.
        let clock = VirtualClock(unixTime: 1_700_000_000.0 + 0.1)
        let radio = ScriptedRadio(clock: clock)
        let advertiser = IdentityAdvertiser(radio: radio, identity: identity, side: .passenger, template: Self.template,
                                            clock: clock, log: { _ in })
        let run = Task { await advertiser.run() }
        #expect(await eventually { radio.advertised != nil && clock.sleeperCount > 0 })
        let first = identity.slot(at: clock.unixTime)
        // Past the wall clock's next multiple of 10 s but short of the ride's boundary: no change.
        clock.advance(toUnixTime: identity.start(of: first + 1) - 0.05)
        try await Task.sleep(for: .milliseconds(50))
        #expect(Self.replacements(radio) == 0)
        clock.advance(toUnixTime: identity.start(of: first + 1))
        #expect(await eventually { Self.replacements(radio) == 1 })
        #expect(radio.advertised == identity.identity(of: .passenger, slot: first + 1).beacon(measuredPower: -59))
        run.cancel()
        _ = await run.value
    }

    @Test("the frame carries the measured power of the power the radio reports (its 1 m level), not the template's")
    func measuredPowerFromTheReportedPower() async throws {
        let clock = VirtualClock(unixTime: 1_700_000_000.0)
        let radio = ScriptedRadio(clock: clock)
        radio.reportTransmitPower(9)
        let lines = Lines()
        let advertiser = IdentityAdvertiser(radio: radio, identity: Self.identity, side: .driver, template: Self.template,
                                            clock: clock, log: lines.append)
        let run = Task { await advertiser.run() }
        let slot = Self.identity.slot(at: clock.unixTime)
        let expected = Self.identity.identity(of: .driver, slot: slot).beacon(measuredPower: MeasuredPower.atOneMetre(transmitPower: 9))
        #expect(expected.measuredPower == -51)
        #expect(await eventually { radio.advertised == expected })
        #expect(lines.all.contains { $0.contains("transmit power 9 dBm") && $0.contains("measured power -51 dBm") })
        // And at the next slot too.
        clock.advance(toUnixTime: Self.identity.start(of: slot + 1))
        #expect(await eventually { radio.advertised?.major == Self.identity.identity(of: .driver, slot: slot + 1).major })
        #expect(radio.advertised?.measuredPower == -51)
        run.cancel()
        _ = await run.value
    }

    @Test("hurry(): the shortest interval at once, the template's again after the bounded time; a second hurry extends it")
    func hurryThenFallBack() async throws {
        let clock = VirtualClock(unixTime: 1_700_000_000.0)
        let radio = ScriptedRadio(clock: clock)
        let advertiser = IdentityAdvertiser(radio: radio, identity: Self.identity, side: .passenger, template: Self.template,
                                            clock: clock, log: { _ in })
        // Before advertising there is nothing to hurry.
        await advertiser.hurry(for: 5)
        #expect(radio.calls.isEmpty)
        let run = Task { await advertiser.run() }
        #expect(await eventually { radio.advertised != nil })
        // The run began inside the hurry: it starts fast.
        #expect(radio.interval == 20)
        clock.advance(by: 5)
        #expect(await eventually { radio.interval == 100 })
        await advertiser.hurry(for: 4)
        #expect(radio.interval == 20)
        clock.advance(by: 3)
        await advertiser.hurry(for: 4)   // extends to 7 s after the first
        clock.advance(by: 2)
        try await Task.sleep(for: .milliseconds(50))
        #expect(radio.interval == 20, "the first hurry's end must not cut the second short")
        clock.advance(by: 2)
        #expect(await eventually { radio.interval == 100 })
        #expect(radio.calls.contains(.setAdvertisingInterval(20)) && radio.calls.last == .setAdvertisingInterval(100))
        run.cancel()
        _ = await run.value
    }

    @Test("the driver's device hurries its beacon when the passenger comes within reach, a ride's advertisement from the start")
    func driverHurriesWhenSheIsWithinReach() async throws {
        let rig = DriverSessionTests.Rig()
        let run = Task { await rig.session(autoConfirm: false).run() }
        #expect(await eventually { rig.radio.scanning && rig.radio.advertised != nil })
        #expect(rig.radio.interval == 100)
        await rig.hearPassenger(rssi: -75, seconds: 2)
        #expect(!rig.radio.calls.contains(.setAdvertisingInterval(20)), "fast while she is far")
        await rig.hearPassenger(rssi: -50, seconds: 2)
        #expect(await eventually { rig.radio.interval == 20 }, "log: \(rig.logged.all)")
        #expect(rig.logged.all.contains { $0.hasPrefix("advertising every 20 ms") })
        run.cancel()
        _ = await run.value
    }
}
