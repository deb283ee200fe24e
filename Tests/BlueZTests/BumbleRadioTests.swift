import BeaconCore
@testable import BlueZ
@testable import HCITransports
@testable import RadioCore
import TestSupport
import Testing

/// Our advertiser on one Bumble virtual controller, our scanner on the other, over h4:tcp.
@Suite("h4 radio against Bumble virtual controllers", .tags(.bumble), .enabled(if: BumbleControllers.shouldRun), .serialized)
struct BumbleRadioTests {
    static func radios(_ bumble: BumbleControllers, commandSet: HCICommandSet = .automatic) async throws -> (HCIRadio, HCIRadio) {
        let options = HCIRadio.Options(commandSet: commandSet)
        let advertiser = try await HCIRadio.connect(RadioSelection(parsing: bumble.radioArgument(0)).hciTransport(), options: options)
        let scanner = try await HCIRadio.connect(RadioSelection(parsing: bumble.radioArgument(1)).hciTransport(), options: options)
        return (advertiser, scanner)
    }

    @Test("the exact iBeacon advertised (extended commands, non-connectable) arrives decoded, with Bumble's fixed RSSI")
    func exactBeaconArrives() async throws {
        let bumble = try BumbleControllers()
        let (advertiser, scanner) = try await Self.radios(bumble)
        #expect(await advertiser.usesExtendedCommands == true)
        let log = EventLog(scanner.scan())
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 50))
        #expect(await log.wait { $0.count(of: Beacons.first) >= 3 })
        let sighting = try #require(log.sightings.first { $0.beacon == Beacons.first })
        #expect(sighting.beacon?.uuid == Beacons.first.uuid)
        #expect(sighting.beacon?.major == 4660 && sighting.beacon?.minor == 22136 && sighting.beacon?.measuredPower == -59)
        #expect(sighting.rssi == -50)
        #expect(sighting.advertisingData == Beacons.first.advertisingData)
        #expect(log.beacons().allSatisfy { $0 == Beacons.first })
        await advertiser.shutdown()
        await scanner.shutdown()
    }

    @Test("legacy commands: a connectable ADV_IND beacon arrives; the controller is driven without extended commands")
    func legacyConnectable() async throws {
        let bumble = try BumbleControllers()
        let (advertiser, scanner) = try await Self.radios(bumble, commandSet: .legacy)
        #expect(await advertiser.usesExtendedCommands == false)
        let log = EventLog(scanner.scan())
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 50, type: .connectable))
        #expect(await log.wait { $0.count(of: Beacons.first) >= 3 })
        await advertiser.shutdown()
        await scanner.shutdown()
    }

    @Test("rotation: after replacing the frame the new identity arrives and the old one never again")
    func rotation() async throws {
        let bumble = try BumbleControllers()
        let (advertiser, scanner) = try await Self.radios(bumble)
        let log = EventLog(scanner.scan())
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 30))
        #expect(await log.wait { $0.count(of: Beacons.first) >= 2 }, "the first identity was not seen twice within 10 s")
        try await advertiser.replaceAdvertisedBeacon(Beacons.rotated)
        let enough = await log.wait(seconds: 30) { $0.count(of: Beacons.rotated) >= 10 }
        #expect(enough, "the rotated identity was seen \(log.count(of: Beacons.rotated)) times within 30 s, not 10")
        // The one controller's PDUs arrive in order: the old identity up to the swap, then only the new.
        #expect(Self.runs(log.beacons()) == [Beacons.first, Beacons.rotated],
                "identities in arrival order: \(Self.runs(log.beacons()).map { $0 == Beacons.first ? "first" : "rotated" })")
        await advertiser.shutdown()
        await scanner.shutdown()
    }

    @Test("a 20 ms interval: every advertising event reaches the stream, exact and in order, none dropped; stopping stops")
    func sentVersusReceived() async throws {
        let bumble = try BumbleControllers()
        let (advertiser, scanner) = try await Self.radios(bumble)
        let log = EventLog(scanner.scan())
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 20))
        let enough = await log.wait(seconds: 60) { $0.count(of: Beacons.first) >= 100 }
        #expect(enough, "\(log.count(of: Beacons.first)) of 100 advertising events reached the stream within 60 s")
        try await advertiser.stopAdvertising()
        // What follows the stop is a different beacon: none of the stopped one may come after it.
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.rotated, intervalMilliseconds: 20))
        #expect(await log.wait(seconds: 30) { $0.count(of: Beacons.rotated) >= 3 }, "the beacon after the stop was not seen within 30 s")
        let sightings = log.sightings
        #expect(scanner.droppedEvents == 0, "the scan stream dropped \(scanner.droppedEvents) events")
        #expect(Self.runs(sightings.compactMap(\.beacon)) == [Beacons.first, Beacons.rotated], "a stopped advertisement was still heard")
        #expect(sightings.allSatisfy { $0.rssi == -50 && ($0.advertisingData == Beacons.first.advertisingData || $0.advertisingData == Beacons.rotated.advertisingData) },
                "a sighting's bytes or RSSI differ from what was advertised")
        #expect(zip(sightings, sightings.dropFirst()).allSatisfy { $0.receivedAt <= $1.receivedAt }, "sightings out of arrival order")
        await advertiser.shutdown()
        await scanner.shutdown()
    }

    @Test("latency from controller bytes to a sighting in the stream (printed; BENCHMARKS.md); each sighting stamped when read")
    func latency() async throws {
        let bumble = try BumbleControllers()
        let (advertiser, scanner) = try await Self.radios(bumble)
        let log = EventLog(scanner.scan())
        let started = ContinuousClock.now
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 20))
        let enough = await log.wait(seconds: 60) { $0.sightings.count >= 300 }
        #expect(enough, "\(log.sightings.count) of 300 sightings within 60 s")
        let sightings = log.sightings
        // One latency per sighting; each sighting stamped when its bytes were read: after the
        // advertising began, in arrival order, before the consumer held it.
        #expect(log.latencies.count == sightings.count)
        #expect(sightings.allSatisfy { $0.receivedAt >= started && $0.beacon == Beacons.first })
        #expect(zip(sightings, sightings.dropFirst()).allSatisfy { $0.receivedAt <= $1.receivedAt }, "stamps out of arrival order")
        #expect(log.latencies.allSatisfy { $0 >= .zero }, "a sighting stamped after the consumer received it")
        let sorted = log.latencies.sorted()
        if !sorted.isEmpty {
            let micros = { (q: Double) -> Int64 in
                let d = sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
                return d.components.seconds * 1_000_000 + d.components.attoseconds / 1_000_000_000_000
            }
            // No bound on the latency itself: a busy machine may stretch it; it is a figure to print.
            print("radio latency over \(sorted.count) sightings: p50 \(micros(0.5)) µs, p90 \(micros(0.9)) µs, p99 \(micros(0.99)) µs, max \(micros(1.0)) µs")
        }
        await advertiser.shutdown()
        await scanner.shutdown()
    }

    /// `beacons` with repeats collapsed: [a, a, b, b, a] -> [a, b, a].
    static func runs(_ beacons: [IBeacon]) -> [IBeacon] {
        beacons.reduce(into: []) { runs, beacon in if runs.last != beacon { runs.append(beacon) } }
    }
}
