import BeaconCore
import Foundation
@testable import HCITransports
@testable import RadioCore
import TestSupport
import Testing

/// The live guide's duty-cycled scan over h4 on Bumble controllers: every window's scan must
/// start hearing the beacon again, including the hand-over from a window to continuous
/// scanning (new stream first, old one ended after) that used to leave scanning stopped.
/// Prints the scan-to-sighting delay of each restart (BENCHMARKS.md, "Radios").
@Suite("h4 duty-cycled scanning on Bumble", .tags(.bumble), .enabled(if: BumbleControllers.shouldRun), .serialized)
struct DutyCycleOverBumbleTests {
    @Test("every restarted scan window hears the beacon; delays printed")
    func everyWindowHears() async throws {
        let bumble = try BumbleControllers()
        let advertiser = try await HCIRadio.connect(RadioSelection(parsing: bumble.radioArgument(0)).hciTransport())
        let scanner = try await HCIRadio.connect(RadioSelection(parsing: bumble.radioArgument(1)).hciTransport())
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 100))
        var delays: [Double] = []
        var previous: EventLog?
        for window in 0..<16 {
            // Even windows restart after a pause with scanning off; odd ones hand over like
            // ScanControl does (the old stream ends only after the new one began).
            if window % 2 == 0 {
                previous?.cancel()
                previous = nil
                try await Task.sleep(for: .milliseconds(300))
            }
            let started = ContinuousClock.now
            let log = EventLog(scanner.scan())
            previous?.cancel()
            previous = log
            let heard = await log.wait(seconds: 30) { $0.count(of: Beacons.first) >= 1 }
            #expect(heard, "window \(window): no sighting within 30 s of restarting the scan")
            if let first = log.sightings.first(where: { $0.beacon == Beacons.first }) {
                let delay = first.receivedAt - started
                delays.append(Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            }
        }
        previous?.cancel()
        let sorted = delays.sorted()
        if !sorted.isEmpty {
            print(String(format: "scan restart -> first sighting over h4/Bumble: n %d, p50 %.3f s, p90 %.3f s, max %.3f s",
                         sorted.count, sorted[sorted.count / 2], sorted[sorted.count * 9 / 10], sorted.last!))
        }
        #expect(delays.count == 16)
        await advertiser.shutdown()
        await scanner.shutdown()
    }
}
