import BeaconCore
import Guide
import RideSession

/// The walk's driver side: what `DriverCore` decides, carried out in the simulated world.
extension GuidedWalk {
    /// Carries out the driver core's actions; what the driver's proof did (the ride confirmed,
    /// or the driver's device felt the touch) reaches the guide as the ride's event stream
    /// would bring it. `unixTime`: the walk's wall clock, the receive time of the driver's proofs.
    mutating func driverActs(_ actions: [DriverCore.Action], at time: Double, unixTime: (Double) -> Double,
                             onDriver: (DriverCore.Action, Double) -> Void,
                                     prove: (BeaconSide, TouchObservation) async -> ProofAnswer) async -> [GuideAction] {
        var guideActions: [GuideAction] = []
        var queue = actions
        while !queue.isEmpty {
            let action = queue.removeFirst()
            onDriver(action, time)
            switch action {
            case .locator(.start(let seconds)):
                world.startLocator(seconds: seconds)
                // The simulated device has a speaker and plays (the runtime's report).
                queue += driver.handle(.locatorPlayed(time: time, played: true, reason: ""))
            case .locator(.stop):
                world.stopLocator()
            case .answerLocator(let sound):
                guideActions += answered(sound, at: time)
                queue += driver.handle(.posted(.locatorAnswer(sound), time: time, failure: nil))
            case .meeting(let move):
                // The ride's event stream brings it to the passenger's guide; delivered, the
                // driver is told she was told.
                guideActions += guide.handle(.driverMeeting(time: time, move))
                queue += driver.handle(.posted(.meeting(move), time: time, failure: nil))
            default:
                break
            }
            guard case .postProof(let observation, let repeating) = action else { continue }
            let answer = await ProofPosting.$unixTime.withValue(unixTime(time)) { await prove(.driver, observation) }
            queue += driver.handle(.proofAnswered(answer, repeating: repeating))
            switch answer {
            case .confirmed:
                queue += driver.handle(.ride(.confirmed))
                guideActions += guide.handle(.rideConfirmed(time: time))
            case .awaitingCounterpart, .notSimultaneous:
                // The server's `touch_observed` event: when the driver's device felt the touch.
                guard !configuration.oneSidedTouch else { break }
                guideActions += guide.handle(.driverFeltTouch(time: time, from: observation.firstUnixTime, until: observation.unixTime))
            case .rejected:
                break
            }
        }
        return guideActions
    }
}
