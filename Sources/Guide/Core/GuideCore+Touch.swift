import BeaconCore
import RideSession

/// GuideCore's side of the touch: noting this device's touch window, telling the passenger,
/// the answers to the proof, and the confirmation.
extension GuideCore {
    mutating func answered(_ out: inout [GuideAction], _ time: Double, _ answer: ProofAnswer) {
        guard state == .confirming else { return }
        switch answer {
        case .confirmed: confirm(&out, time)
        case .awaitingCounterpart: say(&out, time, [.guideWaitingForDriverProof], [:], brief: true)
        case .notSimultaneous:
            // Kept by the server: the driver's device re-proves the ongoing touch, and the
            // confirmation arrives on the event stream once the two meet.
            state = .touch
            touchEnded = time
            say(&out, time, [.guideHoldTogether], [:], brief: true)
        case .rejected(let reason):
            state = .touch
            touchEnded = time
            say(&out, time, [.guideProofRejected], ["reason": reason], always: true)
        }
    }

    mutating func confirm(_ out: inout [GuideAction], _ time: Double) {
        guard !isOver else { return }
        state = .confirmed
        silencePulse(&out)
        out.append(.cue(GuideCue(time: time, sound: .earcon(.touch))))
        // The stream may bring the confirmation before the ride word's own answer does.
        say(&out, time, [wordPending ? .guideConfirmedByWord : .guideConfirmed], ["name": ride.driverName, "vehicle": ride.vehicle], always: true)
        out += [.scan(.off), .finished]
    }

    /// Both devices feel this touch: this one's window meets the driver's latest.
    var feltByBoth: Bool {
        guard let from = touchFrom, let until = touchUntil, let driver = driverWindow else { return false }
        return TouchWindows.meet(from, until, driver.from, driver.until)
    }

    mutating func detectTouch(_ out: inout [GuideAction], _ time: Double) {
        state = .touch
        touchEnded = nil
        holdSaidAt = nil
        silencePulse(&out)
        out.append(.cue(GuideCue(time: time, sound: .earcon(.touch))))
        say(&out, time, [.guideTouchDetected], ["confirm": phrases.text(for: Phrase(confirmControl))], brief: true)
    }

    /// Peak level, sample count and window of the current touch, for the proof.
    mutating func noteTouch(_ estimate: RangeEstimate) {
        guard estimate.touch else { return }
        if state != .touch && state != .confirming && state != .holding {
            touchPeak = -.infinity
            touchSamples = 0
            touchFrom = nil
        }
        touchPeak = max(touchPeak, estimate.filteredRSSI)
        touchSamples += 1
        if let unixTime = lastMatch?.unixTime {
            if touchFrom == nil { touchFrom = unixTime }
            touchUntil = unixTime
        }
    }
}
