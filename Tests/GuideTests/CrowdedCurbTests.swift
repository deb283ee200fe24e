import BeaconCore
import Foundation
import Guide
import GuideSimulation
import RideSession
import Testing

/// Issue 7's crowded kerb: 200 other cars advertise their own rides at once. The guide must
/// follow only its ride's rotating identity, through the collisions the crowd causes.
@Suite struct CrowdedCurbTests {
    static let ride = ScriptedGuide.ride

    @Test func aCrowdOfTwoHundredCarsCostsFourFifthsOfTheAdverts() {
        let curb = CrowdedCurb(count: 200, seed: 1)
        #expect(abs(curb.survival - exp(-2 * 201 * 10 * 376e-6)) < 1e-12)
        #expect(curb.survival > 0.2 && curb.survival < 0.25)
        #expect(Set(curb.cars.map { $0.identity.identity(of: .driver, slot: 1) }).count == 200, "every car its own identity")
    }

    @Test(arguments: [3, 13] as [UInt64])
    func theGuideLocksOntoItsRideAmongTwoHundredCars(seed: UInt64) async {
        var configuration = GuidedWalk.Configuration(seed: seed)
        configuration.otherCars = 200
        var walk = GuidedWalk(ride: Self.ride, configuration: configuration)
        var proven: [TouchObservation] = []
        let policy = MutualProofPolicy()
        var estimatesAtTheEnd: [(truth: Double, estimate: Double)] = []
        let summary = await walk.run(unixTime: { ScriptedGuide.base + $0 },
                                     onCue: { _, moment in
                                         if let estimate = moment.estimatedDistance { estimatesAtTheEnd.append((moment.trueDistance, estimate)) }
                                     },
                                     prove: { side, observation in
                                         if side == .passenger { proven.append(observation) }
                                         return policy.prove(side, observation)
                                     })
        #expect(summary.confirmed, "seed \(seed): \(summary)")
        // The proof names the ride's own driver identity, never one of the crowd's.
        let identity = Self.ride.identity
        for observation in proven {
            #expect(observation.identity == identity.identity(of: .driver, slot: observation.slot))
        }
        #expect(!proven.isEmpty)
        // Decoys sit 2–60 m away; had the guide ranged them, it would not have ended at touch range.
        if let last = estimatesAtTheEnd.last { #expect(last.estimate < 2, "last estimate \(last.estimate) m at \(last.truth) m") }
    }
}
