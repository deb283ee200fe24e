import BeaconCore
import Foundation
import RadioCore
import Testing

/// A scan stream that ends while another begins: the duty-cycled scan's every window. The
/// controller answers LE Set Scan Enable slowly, so the two reconciliations overlap unless the
/// radio serialises them.
@Suite("HCIRadio: overlapping scan restarts")
struct ScanRestartTests {
    /// The simulated controller, with every scan enable/disable held back before it is sent.
    struct SlowScanEnable: HCITransport {
        let inner: SimTransport
        let delay: Duration
        var description: String { "slow-scan-enable" }

        func open() async throws -> HCILink {
            let link = try await inner.open()
            let delay = delay
            return HCILink(inbound: link.inbound, send: { bytes in
                // H4 command indicator, then opcode 0x200C (LE Set Scan Enable) little-endian.
                if bytes.count >= 3, bytes[0] == 0x01, bytes[1] == 0x0C, bytes[2] == 0x20 {
                    try await Task.sleep(for: delay)
                }
                try await link.send(bytes)
            }, close: link.close)
        }
    }

    static let beacon = IBeacon(uuid: UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!, major: 1, minor: 2,
                                measuredPower: -59)

    @Test("a scan started while the previous one is being stopped still receives sightings")
    func stopThenStart() async throws {
        let air = SimAir()
        let advertiser = try await HCIRadio.connect(SimTransport(air: air))
        let scanner = try await HCIRadio.connect(SlowScanEnable(inner: SimTransport(air: air), delay: .milliseconds(150)))
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Self.beacon, intervalMilliseconds: 20))

        let first = EventLog(scanner.scan())
        #expect(await first.wait(seconds: 30) { $0.count(of: Self.beacon) >= 2 }, "the first scan never saw the beacon")
        // The first window ends (its stop is in flight for 150 ms) and the next one begins.
        first.cancel()
        try await Task.sleep(for: .milliseconds(30))
        let second = EventLog(scanner.scan())
        // Adverts reach the new stream until the slow stop lands; what counts is after it.
        try await Task.sleep(for: .milliseconds(600))
        let settled = second.count(of: Self.beacon)
        let heard = await second.wait(seconds: 30) { $0.count(of: Self.beacon) >= settled + 3 }
        #expect(heard, "scanning stayed off after the overlapping restart")
        second.cancel()
        await advertiser.shutdown()
        await scanner.shutdown()
    }

    @Test("many interleaved start/stop requests settle on scanning while one stream is open")
    func interleaved() async throws {
        let air = SimAir()
        let advertiser = try await HCIRadio.connect(SimTransport(air: air))
        let scanner = try await HCIRadio.connect(SlowScanEnable(inner: SimTransport(air: air), delay: .milliseconds(20)))
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Self.beacon, intervalMilliseconds: 20))
        for round in 0..<12 {
            let log = EventLog(scanner.scan())
            try await Task.sleep(for: .milliseconds(UInt64(5 + (round % 4) * 10)))
            log.cancel()
        }
        let last = EventLog(scanner.scan())
        try await Task.sleep(for: .milliseconds(600))
        let settled = last.count(of: Self.beacon)
        #expect(await last.wait(seconds: 30) { $0.count(of: Self.beacon) >= settled + 3 }, "the last stream stopped hearing")
        last.cancel()
        await advertiser.shutdown()
        await scanner.shutdown()
    }
}
