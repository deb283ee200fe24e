import BeaconCore
import Foundation
import TestSupport
import RideSession
import Testing

/// `DriverSession` with the device's shared positions (issue 35): the two fixes as
/// `PositionSharing.updates` gives them reach `DriverCore`, which tells the driver where the
/// passenger is by satellite while the radio does not range her.
@Suite("DriverSession positions")
struct DriverSessionPositionsTests {
    @Test("the car's fix with its parked course and hers 30 m behind it: he is told she is behind the car (the distance as DriverCore claims it)")
    func theDriverIsToldWhereSheIs() async throws {
        let rig = DriverSessionTests.Rig()
        var session = rig.session(autoConfirm: true)
        let (updates, share) = AsyncStream<PositionUpdate>.makeStream()
        session.positions = updates
        let run = Task { [session] in await session.run() }
        // Parked facing east; she is 30 m west of it, on the same kerb.
        let car = GeoFix(latitude: 52.3702, longitude: 4.8952, accuracyMeters: 3, courseDegrees: 90, unixTime: DriverSessionTests.start)
        var her = car.moved(east: -30, north: 0)
        her.courseDegrees = nil
        share.yield(PositionUpdate(own: car, other: her))
        #expect(await eventually { rig.saidLines.contains { $0.hasPrefix("By satellite, Your passenger is behind the car, ") } },
                "\(rig.saidLines)")
        run.cancel()
        _ = await run.value
    }
}
