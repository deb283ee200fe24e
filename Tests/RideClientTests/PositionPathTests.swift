import BeaconCore
import BlueZ
import Foundation
import NIOConcurrencyHelpers
import RideBeaconTesting
import RideClient
import RideSession
import Testing

/// Issue 35's device path whole: the driver's device reads GeoClue (a dbusmock GeoClue on a
/// private system bus), its `PositionSharing` reports through `RideServiceClient` to the real
/// server over HTTP, and the passenger's device (a fixed `--position`) polls it back; and the
/// other way. What is asserted is what each device learnt of the other.
@Suite("Positions end to end: GeoClue → driver's device → server → passenger's device",
       .tags(.process), .enabled(if: GeoClueMock.shouldRun), .timeLimit(.minutes(2)))
struct PositionPathTests {
    @Test("the car's fix and, from its arrival, the course it came in on reach the passenger; hers reaches the driver; both are gone once confirmed")
    func theCarsPositionReachesThePassenger() async throws {
        let world = try await ServerWorld.make()
        let geoclue = try await GeoClueMock()
        defer { geoclue.stop() }
        try await world.withServer { port in
            let server = "http://127.0.0.1:\(port)"
            try await withRideServiceClient(server: server, token: world.passenger.token) { passenger in
            try await withRideServiceClient(server: server, token: world.driver.token) { driver in
                let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "Dam 1", dropoff: "Station"))
                let ride = try await driver.acceptRideRequest(request.id)

                // The driver's device: GeoClue. The passenger's: --position 52.3731,4.8926,6.
                let location = try await GeoClueLocation.open(address: geoclue.address)
                let driverSide = PositionSharing(rideID: ride.id, side: .driver, source: StreamPositionSource(location.fixes), service: driver)
                let herSource = try FixedPositionSource(parsing: "52.3731,4.8926,6")
                let herSide = PositionSharing(rideID: ride.id, side: .passenger, source: herSource, service: passenger)
                let heard = NIOLockedValueBox<[PositionUpdate]>([])
                let runs = [Task { await driverSide.run() }, Task { await herSide.run() }]
                let reader = Task { for await update in herSide.updates { heard.withLockedValue { $0.append(update) } } }
                let lastOther: @Sendable () -> GeoFix? = { heard.withLockedValue { $0.last?.other } }

                // Driving in on course 92° at 6 m/s: on the approach the moving course goes too.
                let now = Date().timeIntervalSince1970.rounded(.down)
                try geoclue.emit(latitude: 52.37301, longitude: 4.89301, accuracy: 5, heading: 92, speed: 6, unixTime: now - 2)
                #expect(await eventually { lastOther()?.latitude == 52.37301 }, "\(heard.withLockedValue { $0 })")
                #expect(lastOther()?.courseDegrees == 92)
                // Stopped at the kerb: no course from GeoClue any more...
                try geoclue.emit(latitude: 52.37302, longitude: 4.89322, accuracy: 4, heading: 92, speed: 0, unixTime: now)
                #expect(await eventually { lastOther()?.longitude == 4.89322 }, "\(heard.withLockedValue { $0 })")
                // ...and at the arrival the car's course is the one it came in on.
                _ = try await driver.arrive(ride.id)
                driverSide.arrived()
                #expect(await eventually { lastOther()?.courseDegrees == 92 }, "\(heard.withLockedValue { $0 })")
                let car = try #require(lastOther())
                #expect(car.latitude == 52.37302 && car.longitude == 4.89322 && car.accuracyMeters == 4)
                // The fix's own time, not the server's receipt; or, when a busy machine took longer
                // than `refreshSeconds` to get here, the sharing's re-stamp of that quiet fix.
                let refresh = PositionSharing.Policy().refreshSeconds
                #expect(abs(car.unixTime - now) < 0.002 || car.unixTime - now >= refresh - 0.01, "\(car.unixTime - now) s after the fix")
                #expect(driverSide.parkedCourse == 92)

                // Her fixed position reached the driver's device.
                #expect(await eventually { driverSide.latest.other?.latitude == 52.3731 })
                #expect(driverSide.latest.other?.longitude == 4.8926 && driverSide.latest.other?.accuracyMeters == 6)
                #expect(driverSide.latest.other?.courseDegrees == nil)
                // The passenger's own side of the update is her source's.
                #expect(heard.withLockedValue { $0.last?.own?.latitude } == 52.3731)

                // Confirmed: the server deletes both; her device learns the car's is gone.
                try await world.confirmAsOperator(rideID: ride.id)
                #expect(await eventually { heard.withLockedValue { $0.last } .map { $0.other == nil } == true },
                        "\(heard.withLockedValue { $0.suffix(2) })")
                for run in runs { run.cancel() }
                for run in runs { await run.value }
                await reader.value
                await location.close()
                #expect(try geoclue.clients().first?.calls == ["Start", "Stop"])
            }
            }
        }
    }

    @Test("the client's answers as the sharing takes them: kept, 429 with its Retry-After, refused for another's ride, 409 once the ride is over")
    func refusalsThroughTheClient() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            let server = "http://127.0.0.1:\(port)"
            try await withRideServiceClient(server: server, token: world.passenger.token) { passenger in
            try await withRideServiceClient(server: server, token: world.driver.token) { driver in
            try await withRideServiceClient(server: server, token: world.otherDriver.token) { stranger in
                let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "Dam 1", dropoff: "Station"))
                let ride = try await driver.acceptRideRequest(request.id)
                let fix = GeoFix(latitude: 52.3731, longitude: 4.8926, accuracyMeters: 6, courseDegrees: 180,
                                 unixTime: Date().timeIntervalSince1970)
                #expect(await passenger.otherPartyPosition(rideID: ride.id) == .success(nil))
                #expect(await driver.reportPosition(rideID: ride.id, fix) == nil)
                // Back to back, faster than the service's rate (it allows a short burst): a 429
                // comes, with the Retry-After the sharing waits out.
                var refusal: PositionRefusal?
                for _ in 0..<20 where refusal == nil { refusal = await driver.reportPosition(rideID: ride.id, fix) }
                guard case .tooSoon(let retryAfter)? = refusal else {
                    Issue.record("reports back to back were not refused with 429: \(String(describing: refusal))")
                    return
                }
                #expect(retryAfter >= 1)
                guard case .success(let seen?) = await passenger.otherPartyPosition(rideID: ride.id) else {
                    Issue.record("the passenger did not see the driver's position")
                    return
                }
                #expect(seen.latitude == fix.latitude && seen.longitude == fix.longitude && seen.courseDegrees == 180)
                #expect(abs(seen.unixTime - fix.unixTime) < 0.002)
                guard case .refused? = await stranger.reportPosition(rideID: ride.id, fix) else {
                    Issue.record("another driver's report was not refused for good")
                    return
                }
                _ = try await driver.arrive(ride.id)
                try await world.confirmAsOperator(rideID: ride.id)
                guard case .rideOver? = await passenger.reportPosition(rideID: ride.id, fix) else {
                    Issue.record("a report on a confirmed ride was not 409")
                    return
                }
                #expect(await passenger.otherPartyPosition(rideID: ride.id) == .success(nil), "deleted at the confirmation")
            }
            }
            }
        }
    }
}
