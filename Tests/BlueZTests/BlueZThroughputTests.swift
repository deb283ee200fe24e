import BeaconCore
@testable import BlueZ
@testable import HCITransports
@testable import RadioCore
import Foundation
import TestSupport
import Testing

/// Samples per second that arrive through the bluez radio when the dbusmock peer emits one
/// Device1 PropertiesChanged per advertising report at a fixed rate. Counts are asserted (no
/// drops); the rates are printed for BENCHMARKS.md ("Radios"), never asserted.
@Suite("bluez radio throughput against dbusmock", .tags(.process), .enabled(if: BluezMock.shouldRun), .serialized)
struct BlueZThroughputTests {
    @Test("every emitted report arrives as a sighting, at 10, 100 and 1000 per second and flat out", arguments: [
        (10, 30), (100, 300), (1000, 3000), (100_000, 5000),
    ])
    func sentVersusReceived(perSecond: Int, count: Int) async throws {
        let mock = try await BluezMock.start()
        var options = BlueZRadioTests.options
        options.busAddress = mock.address
        let radio = try await BlueZRadio.connect(options: options)
        let log = EventLog(radio.scan())
        #expect(await mock.wait { try await mock.discoveryFilter().discovering })
        let address = "C0:FF:EE:00:10:00"
        try await mock.emit(address, Beacons.first.manufacturerData, count: count, perSecond: perSecond)
        let arrived = { (log: EventLog) in log.sightings.filter { $0.beacon == Beacons.first } }
        #expect(await log.wait(seconds: 60) { arrived($0).count >= count })
        let status = try await mock.emitterStatus()
        let received = arrived(log)
        #expect(status.sent == count)
        #expect(received.count == count, "sent \(status.sent), received \(received.count)")
        #expect(radio.droppedEvents == 0)
        // RSSI cycles -40 ... -89 in the mock: every sample, not only 8 dB changes, came through.
        #expect(received.prefix(50).map(\.rssi) == (0..<min(50, count)).map { Int8(-40 - $0 % 50) })
        if let first = received.first, let last = received.last, received.count > 1 {
            let span = last.receivedAt - first.receivedAt
            let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
            let latencies = log.latencies.sorted()
            let p50 = latencies[latencies.count / 2]
            print(String(format: "bluez radio: asked %d/s: mock sent %d in %.3f s (%.0f/s); received %d in %.3f s (%.0f samples/s); p50 signal-to-consumer %.0f µs",
                         perSecond, status.sent, status.seconds, Double(status.sent - 1) / max(status.seconds, 1e-9),
                         received.count, seconds, Double(received.count - 1) / seconds,
                         Double(p50.components.attoseconds) / 1e12 + Double(p50.components.seconds) * 1e6))
        }
        await radio.shutdown()
        await mock.stop()
    }
}
