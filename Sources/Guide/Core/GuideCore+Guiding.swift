import BeaconCore

/// GuideCore guiding, sample by sample: the touch coming (held until both devices feel it),
/// the direction motifs, spoken distances and the proximity pulse, and the signal lost.
extension GuideCore {
    mutating func guide(_ out: inout [GuideAction], _ time: Double, _ estimate: RangeEstimate) {
        noteTouch(estimate)
        if estimate.touch {
            turn.end()
            if state == .touch { return }
            if feltByBoth {
                detectTouch(&out, time)
                return
            }
            if state != .holding {
                state = .holding
                say(&out, time, [.guideHoldTogether], [:], brief: true)
            }
            // The pulse goes on: its silence would mean "no signal".
            pulse(&out, time, estimate)
            return
        }
        if state == .touch {
            if touchEnded == nil { touchEnded = time }
            return
        }
        if state == .holding { state = .guiding }
        touchFrom = nil
        if turn.isActive {
            // Turning on the spot, the body swings the level by 10 dB and more: neither the
            // trend nor the distance band mean anything until the turn ends.
            if let rssi = estimate.rssi { turn.sample(time: time, rssi: rssi) }
            heldDirection = .unknown
            pulse(&out, time, estimate)
            return
        }
        if farField.leads(at: time), !handOver(&out, time, estimate) {
            // The satellite vector guides (`GuideCore+FarField`): the signal's level far away,
            // through the car body, says less than the fixes (nor does it judge the car across
            // the street: the fixes do). The pulse says a signal is heard.
            pulse(&out, time, estimate)
            return
        }
        if meetingHeld {
            // Waiting for the driver: distances and the pulse, never a direction.
            heldDirection = .unknown
            band(&out, time, estimate)
            pulse(&out, time, estimate)
            return
        }
        noteAcross(estimate, at: time)
        direction(&out, time, estimate.trend)
        band(&out, time, estimate)
        pulse(&out, time, estimate)
        if locator.shouldAsk(at: time, distance: estimate.distance, trend: estimate.trend) {
            askForSound(&out, time)
        }
    }

    mutating func direction(_ out: inout [GuideAction], _ time: Double, _ trend: Trend) {
        guard trend == .closer || trend == .farther else {
            heldDirection = trend
            return
        }
        lastDirectionKnown = time
        if trend != heldDirection || time - lastDirectionCue >= timing.directionRepeat {
            heldDirection = trend
            lastDirectionCue = time
            out.append(.cue(GuideCue(time: time, sound: .earcon(trend == .closer ? .closer : .farther))))
        }
    }

    /// The proximity pulse's cadence for the current distance, sent when it changes by a
    /// noticeable step (the audio scheduler ticks on its own between changes).
    mutating func pulse(_ out: inout [GuideAction], _ time: Double, _ estimate: RangeEstimate) {
        guard estimate.distance.isFinite else { return }
        let interval = min(timing.slowestPulse, max(timing.fastestPulse, 0.1 * estimate.distance))
        if let current = pulseInterval, abs(interval - current) < 0.25 * current { return }
        pulseInterval = interval
        out.append(.pulse(interval: (interval * 100).rounded() / 100))
    }

    mutating func silencePulse(_ out: inout [GuideAction]) {
        guard pulseInterval != nil else { return }
        pulseInterval = nil
        out.append(.pulse(interval: nil))
    }

    mutating func loseSignal(_ out: inout [GuideAction], _ time: Double) {
        state = .signalLost
        // The satellite vector guides again until the signal is back within reach.
        farField.handedOver = false
        touchFrom = nil
        // The first loss after a turn (cut short, or after its "car ahead"): the turn/keep-still
        // pair the ladder bounds.
        escalation.signalLost()
        turn.end()
        heldDirection = .unknown
        locator.reset()
        acrossJudge.restart(at: time)
        samplesSinceSignal = 0
        spokenBand = nil
        candidateBand = nil
        bands.reset()
        silencePulse(&out)
        out.append(.cue(GuideCue(time: time, sound: .earcon(.signalLost))))
        say(&out, time, [.guideSignalLost], [:], brief: true)
    }
}
