import BeaconCore
import Foundation
@testable import Guide
import GuideAudio
import TestSupport
import RideSession
import Testing

/// `LiveGuide` with the device's shared positions (issue 35): the sharing's updates reach the
/// guide once a second while fresh, and the far field speaks them; stale fixes are not used.
@Suite("LiveGuide positions")
struct LiveGuidePositionsTests {
    /// The car parked facing east; her fix 30 m west of it, on its kerb side, both `age` s old.
    static func update(age: Double) -> PositionUpdate {
        let car = GeoFix(latitude: 52.3702, longitude: 4.8952, accuracyMeters: 3, courseDegrees: 90,
                         unixTime: LiveGuideTests.start - age)
        var her = car.moved(east: -30, north: -3)
        her.courseDegrees = nil
        return PositionUpdate(own: her, other: car)
    }

    @Test("fresh fixes from the sharing: the far field says the way along the pavement; stale ones say nothing")
    func sharedPositionsReachTheGuide() async {
        for (age, speaks) in [(0.0, true), (60.0, false)] {
            let rig = LiveGuideTests.Rig()
            var guide = rig.guide()
            let (updates, share) = AsyncStream<PositionUpdate>.makeStream()
            guide.positions = updates
            let run = Task { [guide] in await guide.run() }
            share.yield(Self.update(age: age))
            await rig.walk(seconds: 3) { _ in 200 }
            let way: @Sendable () -> Bool = {
                rig.log.all.contains { $0.contains("By satellite, with the street in front of you, the car is to your right") }
            }
            if speaks {
                #expect(await eventually { way() }, "\(rig.log.all)")
            } else {
                // Three virtual seconds of once-a-second feeding went by (and time for the guide's
                // tasks to take it): a minute-old fix was never used.
                try? await Task.sleep(for: .milliseconds(300))
                #expect(!way(), "\(rig.log.all)")
            }
            run.cancel()
            _ = await run.value
        }
    }
}
