import BeaconCore
import Guide
@testable import GuideSimulation
import Phrasebook
import RideSession
import Testing

/// The escalation ladder on the street simulator (issue 37, point 4): a silent driver never
/// answers and never leaves the car. His phone ticks when the ladder asks it (the product's own
/// `DriverCore`), the walker does what she is told and no more. Before the ladder a silent walk
/// was "turn slowly on the spot" and "Signal lost, keep still" until the time limit.
@Suite struct EscalationWalkTests {
    /// The ladder's sentences in order (the phone's answer is its tick, played in the car).
    static let rungs: [PhraseID] = [.guideSoundAsked, .guideDriverNoAnswer, .guidePhoneSoundAsked, .guideRideWordAtTheCar,
                                    .guideCallDispatcher]

    static func silentWalk(seed: UInt64) async -> (keys: [PhraseID], summary: WalkSummary) {
        var configuration = GuidedWalk.Configuration(seed: seed)
        configuration.street = StreetParameters()
        configuration.driver = .silent
        var walk = GuidedWalk(ride: SimulatedRide.wordRide, configuration: configuration)
        let policy = MutualProofPolicy()
        var keys: [PhraseID] = []
        let summary = await walk.run(unixTime: { SimulatedRide.base + $0 }, onCue: { cue, _ in
            if case .speech(let utterance) = cue.sound { keys += utterance.keys }
        }, prove: { side, observation in policy.prove(side, observation) })
        return (keys, summary)
    }

    @Test("silent walks: each rung said once and in order, the whole ladder before an unconfirmed walk ends, no turn/keep-still loop")
    func silentWalksClimbTheLadderOnce() async {
        var unconfirmed = 0
        for seed in UInt64(1)...8 {
            let (keys, summary) = await Self.silentWalk(seed: seed)
            let names = keys.map(\.guideName)
            let said = keys.filter { Self.rungs.contains($0) }
            #expect(Set(said).count == said.count, "seed \(seed): a rung said twice: \(names)")
            #expect(said == Self.rungs.filter { said.contains($0) }, "seed \(seed): out of order: \(names)")
            #expect(keys.filter { $0 == .guideSoundAsked || $0 == .guidePhoneSoundAsked }.count <= 2, "seed \(seed): \(names)")
            #expect(keys.filter { $0 == .guideAskRideWord || $0 == .guideRideWordAtTheCar }.count <= 1, "seed \(seed): \(names)")
            // "Turn on the spot" then "Signal lost, keep still": at most the ladder's bound
            // between two steps of progress, a handful in a walk (nine in one walk before).
            let pair = keys.filter { $0 == .guideTurnOnTheSpot || $0 == .guideSignalLost }
            let loops = zip(pair, pair.dropFirst()).filter { $0 == .guideTurnOnTheSpot && $1 == .guideSignalLost }.count
            #expect(loops <= Escalation.Timing().abortedTurns + 1, "seed \(seed): \(loops) turns cut short: \(names)")
            guard !summary.confirmed else { continue }
            unconfirmed += 1
            #expect(said.contains(.guideCallDispatcher), "seed \(seed): the walk ended unconfirmed without the last rung: \(names)")
            #expect(summary.rideWordOffered, "seed \(seed)")
        }
        #expect(unconfirmed >= 2, "the seeds include walks that never find the car")
    }
}
