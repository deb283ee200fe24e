import BeaconCore
@testable import BlueZ
@testable import HCITransports
@testable import RadioCore
import Foundation
import TestSupport
import Testing

@Suite("h4 radio faults against Bumble", .tags(.bumble), .enabled(if: BumbleControllers.shouldRun), .serialized)
struct BumbleFaultTests {
    /// Our open sockets connected to the controllers' ports. Counting every descriptor would
    /// also count those of tests running in parallel; these belong to the radios alone.
    static func controllerSockets(_ ports: [Int]) -> Int {
        let fm = FileManager.default
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = BumbleControllers.procFile(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, let remotePort = fields[2].split(separator: ":").last,
                      let port = Int(remotePort, radix: 16), ports.contains(port) else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        let fds = (try? fm.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            guard let target = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                  target.hasPrefix("socket:[") else { return false }
            return inodes.contains(String(target.dropFirst(8).dropLast()))
        }.count
    }

    /// Waits (up to 30 s) until no socket of ours is connected to `ports`: a shut-down radio's
    /// closes are asynchronous, a leaked one never comes.
    static func socketsClose(_ ports: [Int]) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while controllerSockets(ports) != 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return controllerSockets(ports) == 0
    }

    /// One advertise/scan session killed mid-scan and restarted; returns the scanner's events.
    static func killAndRestart(_ bumble: BumbleControllers) async throws -> [RadioEvent] {
        let options = HCIRadio.Options(initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(400))
        let advertiser = try await HCIRadio.connect(NIOTransport(.tcp(host: "127.0.0.1", port: bumble.ports[0])), options: options)
        let scanner = try await HCIRadio.connect(NIOTransport(.tcp(host: "127.0.0.1", port: bumble.ports[1])), options: options)
        let log = EventLog(scanner.scan())
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 30))
        #expect(await log.wait { $0.count(of: Beacons.first) >= 2 })

        bumble.kill()
        #expect(await log.wait { $0.all.contains { if case .lost = $0 { true } else { false } } })
        // Let a few reconnect attempts fail against the dead port.
        try await Task.sleep(for: .milliseconds(500))
        try bumble.start()
        #expect(await log.wait(seconds: 15) { $0.all.contains(.restored) })
        let restoredAt = log.all.firstIndex(of: .restored) ?? .max
        // The advertiser re-registered its advertisement on the new controller; the scanner rescans.
        #expect(await log.wait(seconds: 15) { log in
            log.all.dropFirst(restoredAt).contains { if case .sighting(let s) = $0 { s.beacon == Beacons.first } else { false } }
        })
        // One live socket per radio: the ones to the killed controller were closed, not leaked.
        #expect(controllerSockets(bumble.ports) == 2)
        #expect(await advertiser.connectionCount == 2)
        #expect(await scanner.connectionCount == 2)
        await advertiser.shutdown()
        await scanner.shutdown()
        return log.all
    }

    @Test("Bumble killed mid-scan and restarted: radio lost, then restored, advertising and scanning resume; no fd leak")
    func killedMidScan() async throws {
        let bumble = try BumbleControllers()
        _ = try await Self.killAndRestart(bumble)   // warm-up: NIO's event loop threads and fds
        #expect(await Self.socketsClose(bumble.ports), "the warm-up's sockets were still open 30 s after shutdown")
        let events = try await Self.killAndRestart(bumble)
        #expect(await Self.socketsClose(bumble.ports), "sockets to the controller leaked across a loss and reconnect")
        let kinds = events.map { event -> String in
            switch event { case .sighting: "s"; case .lost: "L"; case .restored: "R" }
        }.joined()
        // Sightings, one loss, one restoration, sightings again — in that order.
        #expect(kinds.wholeMatch(of: /s+Ls*Rs+/) != nil, "event order: \(kinds.prefix(200))")
        bumble.stop()
    }

}
