import BeaconCore

/// GuideCore's side of turn-to-find (`TurnToFind`): when a turn starts, what it plays, how it ends.
extension GuideCore {
    /// Starts a turn after `quietBeforeTurn` without a confident direction (when the aids and
    /// the escalation ladder allow: no turn asked for again within its window, none after turns
    /// keep being cut short), plays its tracking tone, and ends it with "Stop. The car is ahead
    /// of you."
    mutating func turnToFind(_ out: inout [GuideAction], _ time: Double, _ estimate: RangeEstimate) {
        guard turn.isActive else {
            // The locator sound is asked for first (`LocatorAsking`): while the car ticks or the
            // request is out or its answer awaited, the ears beat a turn. Within reach the
            // pulse and the cane do better than a turn.
            // Nor in the moment something else was said (a rung of the ladder): one instruction at a time.
            if aids.includesTurn, !locator.pending, !locator.isTicking(at: time), !locator.isAwaiting(at: time), lastSpeech < time,
               time - lastDirectionKnown >= turn.timing.quietBeforeTurn,
               estimate.distance.isFinite, estimate.distance > DistanceBands.edges[0].upper * 2 {
                if locator.mayAskInsteadOfTurning(at: time) {
                    askForSound(&out, time)
                } else if escalation.mayStartTurn(at: time) {
                    beginTurn(&out, time)
                }
            }
            return
        }
        switch turn.tick(time: time) {
        case .tone(let earcon)?: out.append(.cue(GuideCue(time: time, sound: .earcon(earcon))))
        case .stop?:
            lastDirectionKnown = time
            // Progress, but not help: a loss right after it still counts against turning (the
            // ladder's bound on turn/keep-still).
            escalation.progress(at: time, releasesTurns: false)
            say(&out, time, [.guideCarAhead], [:], always: true)
        case nil: break
        }
    }

    mutating func beginTurn(_ out: inout [GuideAction], _ time: Double) {
        turn.begin(at: time)
        escalation.turnStarted(at: time)
        say(&out, time, [.guideTurnOnTheSpot], [:], always: true)
    }
}
