import BeaconCore
import Foundation
import HCITransports
import RadioCore
import RideBeaconTesting
import Synchronization
import Testing

/// `driver arrive` over a real radio peer: a Bumble controller pair over h4:tcp, with the test
/// scanning (and playing the passenger's beacon) on the other controller.
@Suite("driver arrive over Bumble controllers", .tags(.bumble, .process), .enabled(if: BumbleControllers.shouldRun), .serialized, .timeLimit(.minutes(3)))
struct DriverArriveBumbleTests {
    /// Beacons the test's radio heard, collected in the background.
    final class Heard: Sendable {
        private let beacons = Mutex<[(beacon: IBeacon, unix: Double)]>([])
        private let task = Mutex<Task<Void, Never>?>(nil)

        init(_ stream: AsyncThrowingStream<RadioEvent, any Error>) {
            let listening = Task { [weak self] in
                do {
                    for try await event in stream {
                        guard case .sighting(let s) = event, let beacon = s.beacon else { continue }
                        self?.beacons.withLock { $0.append((beacon, Double(s.unixMicroseconds) / 1e6)) }
                    }
                } catch {}
            }
            task.withLock { $0 = listening }
        }

        /// The driver-identity slots of `identity` seen so far.
        func driverSlots(_ identity: RotatingIdentity) -> Set<UInt64> {
            let seen = beacons.withLock { $0 }
            return Set(seen.compactMap { identity.match(BeaconIdentity($0.beacon), of: .driver, at: $0.unix) })
        }

        func stop() { task.withLock { $0?.cancel() } }
    }

    @Test func advertisesTheRotatingIdentityReplacingItEachSlotAndProvesTheTouch() async throws {
        let service = try await RideServiceFixture()
        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rideID = try await service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let bumble = try BumbleControllers()
        let peer = try await HCIRadio.connect(RadioSelection(parsing: bumble.radioArgument(0)).hciTransport())
        let heard = Heard(peer.scan())
        // Bumble reports every advert at -50 dBm: a -60 dBm threshold makes the passenger's beacon "touching".
        let arrive = try BackgroundProcess(["driver", "arrive", "--verbose", rideID, "--radio", bumble.radioArgument(1), "--identity-period", "10",
                                            "--touch-rssi", "-60", "--auto-confirm"],
                                           environment: service.environment(token: service.driverToken))
        defer { arrive.stop() }
        #expect(await arrive.wait { _, err in err.contains("advertising driver identity") }, "\(arrive.stderr)")

        let ride = try await service.rideJSON(rideID)
        let key = try #require((ride["key"] as? String).flatMap { Data(base64Encoded: $0) })
        let period = ride["identityPeriodSeconds"] as? Int ?? 10
        let identity = try RotatingIdentity(rideKey: key, period: period)

        // Two slots' identities on air means the advertisement was replaced at a slot boundary.
        var slots: Set<UInt64> = []
        for _ in 0..<(period * 3 * 10) where slots.count < 2 {
            try await Task.sleep(for: .milliseconds(100))
            slots = heard.driverSlots(identity)
        }
        #expect(slots.count >= 2, "identities of slots \(slots.sorted()) heard; stderr: \(arrive.stderr)")
        if let low = slots.min() { #expect(slots.contains(low + 1), "consecutive slots, no gap") }
        #expect(arrive.stderr.components(separatedBy: "advertising driver identity").count - 1 >= 2)

        // The passenger's own beacon, at touch range: the driver proves it without a key press.
        let touchBegan = Date()
        let now = touchBegan.timeIntervalSince1970
        let passenger = identity.identity(of: .passenger, slot: identity.slot(at: now)).beacon(measuredPower: -59)
        try await peer.startAdvertising(BeaconAdvertisement(beacon: passenger, intervalMilliseconds: 50))
        #expect(await arrive.wait { out, _ in out.contains("Touch detected. Confirming.") }, "\(arrive.stdout)\n\(arrive.stderr)")
        #expect(await arrive.wait { out, err in
            out.contains("Touch proof accepted") || err.contains("cannot verify touch proofs yet")
        }, "\(arrive.stdout)\n\(arrive.stderr)")

        // The passenger confirms later than the server's 10 s pairing window after the driver's
        // first proof: the driver kept proving the ongoing touch, so the ride confirms. The
        // passenger's device has felt the touch since the beacon came on (both windows meet).
        for _ in 0..<12 {
            try await Task.sleep(for: .seconds(1))
            let current = identity.slot(at: Date().timeIntervalSince1970)
            try await peer.replaceAdvertisedBeacon(identity.identity(of: .passenger, slot: current).beacon(measuredPower: -59))
        }
        let slot = identity.slot(at: Date().timeIntervalSince1970)
        let (status, result) = try await service.postPassengerProof(rideID, driver: identity.identity(of: .driver, slot: slot), slot: slot,
                                                                    feltSince: touchBegan)
        #expect(status == 200, "\(result)")
        #expect(result["outcome"] as? String == "confirmed", "\(result); driver: \(arrive.stdout)\n\(arrive.stderr)")
        #expect(await arrive.exitStatus() == 0, "\(arrive.stderr)")
        #expect(arrive.stdout.contains("Ride confirmed."))
        heard.stop()
        try? await peer.stopAdvertising()
        await peer.shutdown()
    }
}
