import BeaconCore
import BlueZ
import Foundation
import NIOConcurrencyHelpers
import TestSupport
import Testing

/// GeoClue2 (issue 35) against a dbusmock GeoClue on a private system bus (`GeoClueMock`):
/// what the client asked of GeoClue is read back through `dbus-send`, and the fixes it yields
/// are compared with what the mock emitted.
@Suite("GeoClue2 location against dbusmock", .tags(.process), .enabled(if: GeoClueMock.shouldRun), .serialized)
struct GeoClueLocationTests {
    static let start = 1_767_225_605.25

    @Test("asks for EXACT accuracy as ridebeacon, starts, yields each LocationUpdated as a fix (course only at speed), stops on close")
    func followsTheLocation() async throws {
        let geoclue = try await GeoClueMock()
        defer { geoclue.stop() }
        let location = try await GeoClueLocation.open(address: geoclue.address)
        let seen = NIOLockedValueBox<[GeoFix]>([])
        let reader = Task { for await fix in location.fixes { seen.withLockedValue { $0.append(fix) } } }

        let clients = try geoclue.clients()
        #expect(clients.count == 1)
        #expect(clients.first?.path == location.clientPath)
        #expect(clients.first?.desktopId == "ridebeacon")
        #expect(clients.first?.accuracyLevel == 8)
        #expect(clients.first?.active == true)
        #expect(clients.first?.calls == ["Start"])

        // Driving north-east at 8 m/s: the heading is the course.
        try geoclue.emit(latitude: 52.370216, longitude: 4.895168, accuracy: 4.5, heading: 47.5, speed: 8, unixTime: Self.start)
        #expect(await eventually { seen.withLockedValue { $0.count } == 1 })
        #expect(seen.withLockedValue { $0 } == [GeoFix(latitude: 52.370216, longitude: 4.895168, accuracyMeters: 4.5, courseDegrees: 47.5,
                                                        unixTime: Self.start)])
        // Later, stopped (GeoClue keeps the last heading; at 0.3 m/s it is no course).
        try geoclue.emit(latitude: 52.37025, longitude: 4.8952, accuracy: 12, heading: 47.5, speed: 0.3, unixTime: Self.start + 3)
        // Then unknown speed and heading.
        try geoclue.emit(latitude: 52.3703, longitude: 4.8953, accuracy: 30, unixTime: Self.start + 4.5)
        #expect(await eventually { seen.withLockedValue { $0.count } == 3 })
        #expect(seen.withLockedValue { Array($0.dropFirst()) } == [
            GeoFix(latitude: 52.37025, longitude: 4.8952, accuracyMeters: 12, courseDegrees: nil, unixTime: Self.start + 3),
            GeoFix(latitude: 52.3703, longitude: 4.8953, accuracyMeters: 30, courseDegrees: nil, unixTime: Self.start + 4.5),
        ])

        await location.close()
        await reader.value   // the fixes end with the close
        #expect(try geoclue.clients().first?.calls == ["Start", "Stop"])
        #expect(try geoclue.clients().first?.active == false)
    }

    @Test("no GeoClue on the bus, or no bus: unavailable, said as such, not a crash or a hang")
    func missingService() async throws {
        let bus = try await GeoClueMock(service: false)
        defer { bus.stop() }
        guard case .failure(let error) = await GeoClueLocation.auto(address: bus.address) else {
            Issue.record("GeoClue opened on a bus without it")
            return
        }
        #expect(error.reason == .notRunning, "\(error)")
        #expect(error.description.contains("org.freedesktop.GeoClue2 is not on the system bus"), "\(error)")
        guard case .failure(let none) = await GeoClueLocation.auto(address: "unix:path=\(bus.directory.path)/gone") else {
            Issue.record("GeoClue opened without a bus")
            return
        }
        #expect(none.reason == .noBus, "\(none)")
    }

    @Test("the fixes end when GeoClue leaves the bus")
    func serviceGone() async throws {
        let geoclue = try await GeoClueMock()
        defer { geoclue.stop() }
        let location = try await GeoClueLocation.open(address: geoclue.address)
        let ended = NIOLockedValueBox(false)
        let reader = Task {
            for await _ in location.fixes {}
            ended.withLockedValue { $0 = true }
        }
        #expect(!ended.withLockedValue { $0 })
        geoclue.killService()
        #expect(await eventually { ended.withLockedValue { $0 } }, "a position source that is gone must not look live")
        await location.close()
        await reader.value
    }
}
