import BeaconCore
@testable import BlueZ
@testable import HCITransports
@testable import RadioCore
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A Bumble *host* (bumble_beacon_peer.py, Bumble's Device API) as the other end: its decoder
/// and its advertiser are Bumble's and the spec's, not ours.
@Suite("h4 radio against a Bumble host peer", .tags(.bumble), .enabled(if: BumbleControllers.shouldRun), .serialized)
struct BumbleHostPeerTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("bumble_beacon_peer.py").path

    /// The peer running with its stdout in a file the test reads as it grows.
    // @unchecked: Process is thread-safe for the calls made here (run, terminate, wait); `output` is immutable.
    final class Peer: @unchecked Sendable {
        let process = Process()
        let output: URL

        init(_ arguments: [String]) throws {
            let python = try #require(BumbleControllers.python)
            output = FileManager.default.temporaryDirectory.appendingPathComponent("bumble-peer-\(UUID().uuidString.prefix(8))")
            guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
                throw FixtureError("cannot create the peer's output \(output.path)")
            }
            let handle = try FileHandle(forWritingTo: output)
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [BumbleHostPeerTests.script] + arguments
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            try handle.close()
        }

        var lines: [String] {
            ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        var beacons: [[String: Any]] {
            lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        func stop() {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
            ChildExit.waitBlocking(for: process, seconds: 10)
            try? FileManager.default.removeItem(at: output)
        }
    }

    static func until(seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline, !condition() { try? await Task.sleep(for: .milliseconds(50)) }
        return condition()
    }

    @Test("(a) our advertiser, a Bumble host scanning: it decodes our exact UUID, major, minor and measured power")
    func bumbleHostDecodesOurBeacon() async throws {
        let bumble = try BumbleControllers()
        let advertiser = try await HCIRadio.connect(NIOTransport(.tcp(host: "127.0.0.1", port: bumble.ports[0])))
        try await advertiser.startAdvertising(BeaconAdvertisement(beacon: Beacons.first, intervalMilliseconds: 50))
        let peer = try Peer(["scan", "--transport", "tcp-client:127.0.0.1:\(bumble.ports[1])", "--count", "3", "--seconds", "30"])
        defer { peer.stop() }
        #expect(await Self.until { peer.beacons.count >= 3 || !peer.process.isRunning }, "peer: \(peer.lines)")
        let decoded = peer.beacons
        #expect(decoded.count >= 3, "peer: \(peer.lines)")
        for beacon in decoded {
            #expect(beacon["uuid"] as? String == Beacons.first.uuid.uuidString)
            #expect(beacon["major"] as? Int == Int(Beacons.first.major))
            #expect(beacon["minor"] as? Int == Int(Beacons.first.minor))
            #expect(beacon["measured_power"] as? Int == Int(Beacons.first.measuredPower))
        }
        await advertiser.shutdown()
    }

    @Test("(b) a Bumble host advertising an iBeacon: our scanner decodes it")
    func weDecodeBumbleHostBeacon() async throws {
        let bumble = try BumbleControllers()
        let scanner = try await HCIRadio.connect(NIOTransport(.tcp(host: "127.0.0.1", port: bumble.ports[1])))
        let log = EventLog(scanner.scan())
        let expected = Beacons.make("7A1C0DE5-0000-4000-8000-00000000B0B1", major: 40001, minor: 7, power: -71)
        let peer = try Peer(["advertise", "--transport", "tcp-client:127.0.0.1:\(bumble.ports[0])",
                             "--uuid", expected.uuid.uuidString, "--major", "40001", "--minor", "7", "--measured-power", "-71"])
        defer { peer.stop() }
        #expect(await log.wait(seconds: 30) { $0.count(of: expected) >= 3 }, "peer: \(peer.lines)")
        let sighting = try #require(log.sightings.first { $0.beacon == expected })
        #expect(sighting.beacon?.measuredPower == -71)
        #expect(log.beacons().allSatisfy { $0 == expected })
        await scanner.shutdown()
    }
}
