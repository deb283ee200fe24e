import BlueZ
import Foundation
import NIOConcurrencyHelpers
import RadioCore
import TestSupport
import Testing

/// iio-sensor-proxy's compass against python3-dbusmock on a private system bus (this kernel has
/// no magnetometer): dbusmock owns net.hadess.SensorProxy, and the Compass object is added
/// through its generic org.freedesktop.DBus.Mock interface as iio-sensor-proxy exports it.
/// dbusmock's own call log (GetCalls) says what was claimed, not our decoder of our calls.
@Suite("iio-sensor-proxy compass against dbusmock", .tags(.process), .enabled(if: BluezMock.shouldRun), .serialized)
struct SensorProxyCompassTests {
    static let service = "net.hadess.SensorProxy"
    static let mainPath = "/net/hadess/SensorProxy"
    static let path = "/net/hadess/SensorProxy/Compass"
    static let interface = "net.hadess.SensorProxy.Compass"
    static let mock = "org.freedesktop.DBus.Mock"

    /// The private bus with the sensor proxy on it, its compass present or not.
    static func sensorProxy(hasCompass: Bool, heading: Double = -1) async throws -> BluezMock {
        let bus = try await BluezMock.startBus()
        try await bus.startDbusmock([service, mainPath, service], owning: service)
        let methods = ["ClaimCompass", "ReleaseCompass"].map { DBusValue.structure([.string($0), .string(""), .string(""), .string("")]) }
        try await bus.call(service, mainPath, mock, "AddObject", [
            .string(path), .string(interface),
            .properties([("HasCompass", .boolean(hasCompass)), ("CompassHeading", .double(heading))]),
            .array(elementSignature: "(ssss)", methods),
        ])
        return bus
    }

    /// Methods called on the Compass object so far, oldest first (dbusmock's log).
    static func calls(_ bus: BluezMock) async throws -> [String] {
        let reply = try await bus.call(service, path, mock, "GetCalls")
        return (reply.first?.arrayElements ?? []).compactMap { call in
            if case .structure(let fields) = call, fields.count >= 2 { fields[1].stringValue } else { nil }
        }
    }

    /// Sets `CompassHeading`; dbusmock emits PropertiesChanged as iio-sensor-proxy does.
    static func setHeading(_ bus: BluezMock, _ degrees: Double) async throws {
        try await bus.call(service, path, mock, "UpdateProperties", [.string(interface), .properties([("CompassHeading", .double(degrees))])])
    }

    @Test func claimsTheCompassDeliversItsHeadingsAndReleasesIt() async throws {
        let bus = try await Self.sensorProxy(hasCompass: true, heading: 12.5)
        let compass = try await SensorProxyCompass.open(address: bus.address)
        let seen = NIOLockedValueBox<[Double]>([])
        let reader = Task {
            for await reading in compass.readings { seen.withLockedValue { $0.append(reading.degrees) } }
        }
        #expect(try await Self.calls(bus) == ["ClaimCompass"])
        // The heading at the claim, then each change; −1 (unknown) is no reading.
        #expect(await bus.wait(seconds: 10) { seen.withLockedValue { $0 } == [12.5] }, "\(seen.withLockedValue { $0 })")
        for degrees in [90.0, -1, 359.5, 0] {
            try await Self.setHeading(bus, degrees)
        }
        #expect(await bus.wait(seconds: 10) { seen.withLockedValue { $0.count } >= 4 })
        #expect(seen.withLockedValue { $0 } == [12.5, 90, 359.5, 0])
        await compass.release()
        #expect(try await Self.calls(bus) == ["ClaimCompass", "ReleaseCompass"])
        await reader.value   // the readings end with the release
        await bus.stop()
    }

    @Test func theReadingsEndWhenTheSensorProxyLeavesTheBus() async throws {
        let bus = try await Self.sensorProxy(hasCompass: true)
        let compass = try await SensorProxyCompass.open(address: bus.address)
        let ended = NIOLockedValueBox(false)
        let reader = Task {
            for await _ in compass.readings {}
            ended.withLockedValue { $0 = true }
        }
        #expect(!ended.withLockedValue { $0 })
        bus.killMock()
        #expect(await bus.wait(seconds: 10) { ended.withLockedValue { $0 } }, "the guide must stop trusting a compass that is gone")
        await compass.release()
        await reader.value
        await bus.stop()
    }

    @Test func noCompassMeansTimingAndNothingClaimed() async throws {
        let bus = try await Self.sensorProxy(hasCompass: false)
        await #expect(throws: SensorProxyCompass.Unavailable.self) { try await SensorProxyCompass.open(address: bus.address) }
        let (compass, said) = await SensorProxyCompass.auto(address: bus.address)
        #expect(compass == nil)
        #expect(said.contains("HasCompass is false") && said.hasSuffix("turn-to-find times the turn"), "\(said)")
        #expect(try await Self.calls(bus).isEmpty, "a sensor that is not there is not claimed")
        await bus.stop()
    }

    @Test func noSensorProxyOnTheBusMeansTiming() async throws {
        let bus = try await BluezMock.startBus()
        let (compass, said) = await SensorProxyCompass.auto(address: bus.address)
        #expect(compass == nil)
        #expect(said.contains("net.hadess.SensorProxy is not on the system bus") && said.hasSuffix("turn-to-find times the turn"), "\(said)")
        await bus.stop()
        // No bus at all: the same, not a hang or a crash.
        let (none, why) = await SensorProxyCompass.auto(address: "unix:path=\(bus.directory.path)/gone")
        #expect(none == nil)
        #expect(why.contains("no system bus"), "\(why)")
    }
}
