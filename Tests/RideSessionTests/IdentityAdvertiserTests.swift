import BeaconCore
import Foundation
import RadioCore
import SessionDoubles
import TestSupport
import RideSession
import Synchronization
import Testing

/// Records what is put on the air; fails the next `failures` replacements.
actor RecordingRadio: Radio {
    private(set) var advertised: [IBeacon] = []
    var failures = 0

    func failNext(_ count: Int) { failures = count }
    func startAdvertising(_ advertisement: BeaconAdvertisement) async throws { advertised.append(advertisement.beacon) }
    func replaceAdvertisedBeacon(_ beacon: IBeacon) async throws {
        if failures > 0 {
            failures -= 1
            throw RadioError("controller busy")
        }
        advertised.append(beacon)
    }
    func setAdvertisingInterval(milliseconds: Int) async throws {}
    var advertisingTransmitPower: Int8? { nil }
    func stopAdvertising() async throws {}
    nonisolated func scan() -> AsyncThrowingStream<RadioEvent, any Error> { AsyncThrowingStream { $0.finish() } }
    nonisolated func connectionEvents() -> AsyncThrowingStream<RadioEvent, any Error> { AsyncThrowingStream { $0.finish() } }
    func shutdown() async {}
}

@Suite("IdentityAdvertiser")
struct IdentityAdvertiserTests {
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 3, count: 32), period: 30)

    @Test("each slot's identity goes on the air at its boundary; a failed rotation is retried and logged")
    func rotatesAndRetries() async throws {
        let clock = VirtualClock(unixTime: 1_700_000_010)
        let radio = RecordingRadio()
        let logs = Mutex<[String]>([])
        let template = BeaconAdvertisement(beacon: IBeacon(uuid: UUID(), major: 0, minor: 0, measuredPower: -61))
        let advertiser = IdentityAdvertiser(radio: radio, identity: Self.identity, side: .driver, template: template,
                                            clock: clock, log: { line in logs.withLock { $0.append(line) } })
        let task = Task { await advertiser.run() }
        let slot = Self.identity.slot(at: 1_700_000_010)
        let frame: @Sendable (UInt64) -> IBeacon = { Self.identity.identity(of: .driver, slot: $0).beacon(measuredPower: -61) }

        #expect(await eventually { await radio.advertised == [frame(slot)] })
        #expect(await eventually { clock.sleeperCount == 1 })
        clock.advance(toUnixTime: Self.identity.start(of: slot + 1) - 0.5)
        #expect(await radio.advertised.count == 1, "not before the boundary")

        await radio.failNext(1)
        clock.advance(toUnixTime: Self.identity.start(of: slot + 1))
        // The failed replacement waits a second on the clock before its retry.
        #expect(await eventually { clock.sleeperCount == 1 })
        #expect(await radio.advertised.count == 1)
        clock.advance(toUnixTime: Self.identity.start(of: slot + 1) + 1)
        #expect(await eventually { await radio.advertised == [frame(slot), frame(slot + 1)] })
        #expect(logs.withLock { $0 } == ["radio: controller busy; retrying"])

        task.cancel()
        clock.advance(toUnixTime: Self.identity.start(of: slot + 3))
        #expect(await task.value == nil)
    }
}
