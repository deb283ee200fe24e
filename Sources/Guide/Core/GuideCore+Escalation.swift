import BeaconCore
import Phrasebook

/// GuideCore's side of the escalation ladder (`Escalation`, issue 37 point 4): each tick, when
/// guiding has made no progress for a while or a rung failed, the next rung is given: a sound
/// asked of the driver, his phone's own sound, the ride word for when she finds the car, and
/// "call your driver" or the dispatcher. Each is said once, and only what is true then: the
/// request is said to be asked, a sound is said to be made only once his device answered.
extension GuideCore {
    /// Steps up the ladder when it is due (between arrival and the touch).
    mutating func escalate(_ out: inout [GuideAction], _ time: Double) {
        guard !isOver else { return }
        switch state {
        case .holding, .touch, .confirming:
            // The phones are together: that is progress, whoever helped.
            escalation.progress(at: time)
            return
        case .searching, .guiding, .signalLost:
            break
        case .waiting, .confirmed, .cancelled, .stopped:
            return
        }
        escalation.spoke(spokenBand, far: false, at: time)
        escalation.spoke(farField.spokenBand, far: true, at: time)
        // A request's answer is outstanding: the rung it belongs to is not over yet.
        guard !locator.pending, !locator.isAwaiting(at: time) else { return }
        while escalation.isDue(at: time, driverComing: meetingHeld), let rung = escalation.next {
            guard climb(&out, time, rung) else { return }
        }
    }

    /// Gives `rung` (or passes over it when it cannot help); false when it must wait (a
    /// request already out, the car ticking, the ride service's interval not yet over).
    private mutating func climb(_ out: inout [GuideAction], _ time: Double, _ rung: Escalation.Rung) -> Bool {
        switch rung {
        case .sound:
            // The driver coming has answered already; without the locator aid the guide asks nothing.
            guard locator.automatic, locator.failures == 0, !meetingHeld else {
                escalation.skip(.sound)
                return true
            }
            guard locator.mayAsk(at: time) else { return false }
            askForSound(&out, time)
        case .phoneSound:
            guard locator.automatic, !meetingHeld else {
                escalation.skip(.phoneSound)
                return true
            }
            // His last sound came (he helps): the rung below did not fail, so he is asked again
            // rather than the ladder climbing past him (the call comes only after what is
            // below it was tried and failed).
            if locator.failures == 0, escalation.mayRetrySound {
                guard locator.mayAsk(at: time) else { return false }
                escalation.retriedSound(at: time)
                locator.asked(at: time)
                out.append(.requestLocator)
                return false
            }
            // Only after the driver did not help (his phone then ticks by itself, `DriverCore`),
            // and only when his device may tick (its `--locator-sounds` allows `device`): else
            // "Asking Ben's phone" would be false.
            guard locator.failures > 0, ride.phoneMaySound else {
                escalation.skip(.phoneSound)
                return true
            }
            guard locator.mayAsk(at: time) else { return false }
            escalation.gave(.phoneSound, at: time)
            escalation.phoneRequestOut = true
            locator.asked(at: time)
            out.append(.requestLocator)
        case .rideWord:
            guard let word = ride.rideWord, !wordOffered else {
                escalation.skip(.rideWord)
                return true
            }
            escalation.gave(.rideWord, at: time)
            wordOffered = true
            say(&out, time, [.guideRideWordAtTheCar, .guideRideWordIs], ["word": word], always: true)
        case .call:
            escalation.gave(.call, at: time)
            if let phone = ride.driverPhone {
                say(&out, time, [.guideCallDriver], ["name": ride.driverName, "phone": phone], always: true)
            } else {
                say(&out, time, [.guideCallDispatcher], [:], always: true)
            }
        }
        return true
    }

    /// A locator request the guide makes by itself or the passenger's `s`: the ladder's first
    /// rung, if it was not given yet.
    mutating func askForSound(_ out: inout [GuideAction], _ time: Double) {
        if escalation.next == .sound { escalation.gave(.sound, at: time) }
        locator.asked(at: time)
        out.append(.requestLocator)
    }

    /// The wait for the driver's answer ran out: said plainly (nothing about what he can or
    /// cannot do: his device did not answer), and the ladder steps up.
    mutating func noAnswer(_ out: inout [GuideAction], _ time: Double) {
        let phone = escalation.phoneRequestOut
        escalation.phoneRequestOut = false
        escalation.rungFailed()
        // Waiting for the driver, who is coming: nothing to add.
        guard !meetingHeld else { return }
        say(&out, time, [phone ? .guidePhoneNoAnswer : .guideDriverNoAnswer], ["name": ride.driverName], always: true)
    }

}
