import BeaconCore
import Foundation
@testable import HCITransports
@testable import RadioCore
import RideBeaconTesting
import Synchronization
import Testing

/// Issue 34's fast advertising on real parts: a real `ridebeacon passenger guide` on one Bumble
/// controller; on the other, the test plays the car (the driver's identity, at Bumble's fixed
/// −50 dBm, which the guide is told is touch range) and counts the passenger's beacon. Nothing
/// before the arrival; after it, when the guide enters the last metre ("hold the phones
/// together"), reports come at least 3 times as often as 15 s later, when it has fallen back;
/// and the frame's measured power is the 1 m level of Bumble's reported 0 dBm.
@Suite("The passenger's beacon over Bumble: from arrival, fast in the last metre, then back", .tags(.bumble, .process), .timeLimit(.minutes(4)))
struct FastAdvertisingOverBumbleTests {
    /// The passenger's beacons the car's scanner heard: (frame, arrival).
    final class Heard: Sendable {
        private let heard = Mutex<[(IBeacon, ContinuousClock.Instant)]>([])
        private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

        init(_ stream: AsyncThrowingStream<RadioEvent, any Error>, identity: RotatingIdentity) {
            let consumer = Task { [weak self] in
                do {
                    for try await event in stream {
                        guard case .sighting(let s) = event, let beacon = s.beacon,
                              identity.match(BeaconIdentity(beacon), of: .passenger, at: Double(s.unixMicroseconds) / 1e6) != nil
                        else { continue }
                        self?.heard.withLock { $0.append((beacon, s.receivedAt)) }
                    }
                } catch {}
            }
            task.withLock { $0 = consumer }
        }

        var all: [(IBeacon, ContinuousClock.Instant)] { heard.withLock { $0 } }

        func count(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Int {
            all.filter { $0.1 >= start && $0.1 < end }.count
        }

        func stop() { task.withLock { $0?.cancel() } }
    }

    @Test(.enabled(if: BumbleControllers.shouldRun, "needs .venv with bumble (make test creates it)"))
    func lastMetreIsFastThenBack() async throws {
        let (server, api, passenger, driver, rideID) = try await GuideOverBumbleTests.acceptedRide()
        defer { server.stop() }
        let ride = try await api.call(.GET, "/v1/rides/\(rideID)", token: driver).json
        let key = try #require(Data(base64Encoded: ride["key"] as? String ?? ""))
        let identity = try RotatingIdentity(rideKey: Array(key), period: try #require(ride["identityPeriodSeconds"] as? Int))

        let bumble = try BumbleControllers()
        defer { bumble.stop() }
        let car = try await HCIRadio.connect(RadioSelection(parsing: bumble.radioArgument(0)).hciTransport())
        let heard = Heard(car.scan(), identity: identity)
        defer { heard.stop() }
        let guide = try Interactive(["passenger", "guide", rideID, "--radio", bumble.radioArgument(1), "--touch-rssi", "-55",
                                     "--audio-out", "none", "--server", server.baseURL], token: passenger)
        defer { guide.stop() }
        #expect(await guide.wait { $0.contains("Your driver is on the way.") }, "\(guide.stderr)")
        try await Task.sleep(for: .seconds(2))
        #expect(heard.all.isEmpty, "the passenger advertised before the driver arrived")

        // The car: the driver's current identity (a ride's test lasts well within the ±1 slot accepted).
        let now = Date().timeIntervalSince1970
        try await car.startAdvertising(.ride(beacon: identity.identity(of: .driver, slot: identity.slot(at: now)).beacon(measuredPower: -59)))
        #expect(try await api.call(.POST, "/v1/rides/\(rideID)/arrive", token: driver).status == 200)
        let hold = "Hold the phones together."
        #expect(await guide.wait { $0.contains(hold) || $0.contains("Very close") }, "\(guide.stdout)\n\(guide.stderr)")
        let lastMetre = ContinuousClock.now
        // Counted from her first report after that: on a loaded machine her radio may take a few
        // seconds to start advertising after the arrival (a full-suite run heard none in the
        // 3 s after the phrase), which is not what this test measures.
        var first: ContinuousClock.Instant?
        for _ in 0..<100 where first == nil {
            first = heard.all.first { $0.1 >= lastMetre }?.1
            if first == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let start = try #require(first, "no report from her within 10 s of the last metre\n\(guide.stderr)")
        // `IdentityAdvertiser.hurrySeconds` (15 s) after it began, at most: back at 100 ms. Read
        // over 10 s (a CI run once heard nothing in a 3 s window there) and compared as rates.
        // Both windows are counted at the end: the car's reports reach this process late on a
        // loaded machine (a CI run counted 74 in the fast window as it closed, ~125 stamped in it).
        try await Task.sleep(until: lastMetre + .seconds(28), clock: .continuous)
        let fast = heard.count(from: start + .milliseconds(500), to: start + .milliseconds(3_500))
        let normal = heard.count(from: lastMetre + .seconds(18), to: lastMetre + .seconds(28))
        let perSecond = (0..<28).map { heard.count(from: lastMetre + .seconds($0), to: lastMetre + .seconds($0 + 1)) }
        print("passenger's reports at the car over Bumble: \(fast) in 3 s of the last metre, \(normal) in 10 s from 18 s later; per second: \(perSecond)")
        #expect(normal > 0 && Double(fast) / 3 >= 3 * Double(normal) / 10,
                "\(fast) fast reports in 3 s against \(normal) in 10 s after falling back; per second \(perSecond)\n\(guide.stdout)\n\(guide.stderr)")
        // Bumble's controller reports 0 dBm: once it has, the frame says its 1 m level.
        #expect(heard.all.last?.0.measuredPower == MeasuredPower.atOneMetre(transmitPower: 0))
        await car.shutdown()
    }
}
