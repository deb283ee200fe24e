import BeaconCore
import Phrasebook
import RideSession

/// GuideCore's side of the meeting at the kerb (issue 22): the ride service's and then the
/// driver's answer to a locator request (a sound is promised only once the driver made it),
/// the driver walking over, the car across the street, and the ride word when the touch is
/// not felt.
extension GuideCore {
    /// A driver who walked over has been within reach this long, s: the ride word is offered
    /// (the touch is still felt if it comes; real phone pairs often do not reach the touch level).
    public static let rideWordBesideDriver = 3.0
    /// Within this by the estimate, m, a coming driver counts as beside her.
    public static let besideDriverDistance = 1.5

    /// The phrase for a sound the driver made.
    static func soundPhrase(_ sound: LocatorSoundName) -> PhraseID {
        switch sound {
        case .horn: .guideDriverHorn
        case .voice: .guideDriverVoice
        case .device: .guideDriverDevice
        case .none: .guideDriverCannotSound
        }
    }

    /// The answer to a locator request: the passenger is told to listen (all verbosities: it
    /// changes what they must do), or why the car will not sound.
    mutating func locatorAnswered(_ out: inout [GuideAction], _ time: Double, _ answer: LocatorAnswer) {
        let wasTicking = locator.isTicking(at: time)
        locator.answered(at: time, answer)
        guard !isOver else { return }
        // The request is with the driver: nothing is promised until the driver answers
        // (`driverSounded`), or the wait runs out (`meetingTick`). The ladder's request to his
        // phone says so.
        let asked: PhraseID = escalation.phoneRequestOut ? .guidePhoneSoundAsked : .guideSoundAsked
        switch answer {
        case .ticking: say(&out, time, [asked], ["name": ride.driverName], always: true)
        case .tooSoon:
            if wasTicking, let sound = locator.sound {
                say(&out, time, [Self.soundPhrase(sound)], ["name": ride.driverName], always: true)
            } else if escalation.phoneRequestOut {
                // Refused by the interval: nothing was asked of his phone; the ladder goes on.
                escalation.phoneRequestOut = false
                escalation.rungFailed()
            } else {
                say(&out, time, [.guideSoundAsked], ["name": ride.driverName], always: true)
            }
        case .refused(let reason):
            // His phone would be refused as well: the ladder passes over both sound rungs.
            escalation.phoneRequestOut = false
            escalation.skip(.sound)
            escalation.skip(.phoneSound)
            say(&out, time, [.guideLocatorUnavailable], ["reason": reason], always: true)
        }
    }

    /// The driver answered: "Ben is sounding the horn" (a sound made), or "Ben cannot make a
    /// sound now; let's turn to find the car" and the turn (`none`). An answer nobody awaits
    /// (late, or replayed from history) is ignored.
    mutating func driverSounded(_ out: inout [GuideAction], _ time: Double, _ sound: LocatorSoundName, age: Double) {
        guard !isOver, locator.driverAnswered(at: time, sound, age: age) else { return }
        escalation.phoneRequestOut = false
        if sound == .none {
            cannotSound(&out, time)
        } else {
            // His device answered with a sound: help, and the ladder's clock restarts.
            escalation.progress(at: time)
            say(&out, time, [Self.soundPhrase(sound)], ["name": ride.driverName], always: true)
        }
    }

    /// No sound: said, and the ladder steps up (his phone, when not asked yet); once his phone
    /// was asked, the turn on the spot while guiding and the ladder allow one, said with it
    /// only when it follows ("let's turn to find the car" is a promise).
    mutating func cannotSound(_ out: inout [GuideAction], _ time: Double) {
        escalation.rungFailed()
        let phoneNext = escalation.next == .phoneSound && locator.automatic && !meetingHeld
        let turns = !phoneNext && state == .guiding && !meetingHeld && !turn.isActive
            && escalation.mayStartTurn(at: time)
        say(&out, time, [turns ? .guideDriverCannotSound : .guideDriverCannotSoundNow], ["name": ride.driverName], always: true)
        if turns { beginTurn(&out, time) }
    }

    /// The driver is walking over, or says the car is across the street.
    mutating func driverMeeting(_ out: inout [GuideAction], _ time: Double, _ move: MeetingMove) {
        guard !isOver, state != .waiting else { return }
        // The driver helps: the ladder's clock restarts (and runs slower while he comes).
        escalation.progress(at: time)
        switch move {
        case .coming:
            guard !meetingHeld || carAcross else {
                // Already waiting for the driver: said once.
                return
            }
            holdForDriver(time)
            // With the satellite fixes giving a way along the pavement, she walks on to meet him.
            if !driverComing(&out, time) { say(&out, time, [.guideDriverComing], ["name": ride.driverName], always: true) }
        case .across:
            guard !carAcross else { return }
            carAcross = true
            holdForDriver(time)
            say(&out, time, [.guideCarAcross], ["name": ride.driverName], always: true)
        }
    }

    /// Stops giving directions: the passenger waits for the driver and the touch.
    mutating func holdForDriver(_ time: Double) {
        meetingHeld = true
        turn.end()
    }

    /// Per tick: the driver's answer overdue, the ride word due, the car across the street.
    mutating func meetingTick(_ out: inout [GuideAction], _ time: Double) {
        guard !isOver else { return }
        // Overdue: said as it is (no answer), and the ladder steps up.
        if locator.answerOverdue(at: time) { noAnswer(&out, time) }
        if let holdSaidAt, !wordOffered, ride.rideWord != nil, state != .touch, state != .confirming,
           time - holdSaidAt >= Self.rideWordAfter {
            offerRideWord(&out, time)
        }
        // The driver said he is coming and is now beside her: the word at once, not after a
        // touch the phones may never feel.
        let beside = meetingHeld && !ranger.isStale(at: time) && (lastEstimate?.distance ?? .infinity) <= Self.besideDriverDistance
        driverBesideSince = beside ? (driverBesideSince ?? time) : nil
        // Not while a touch is being felt (`holding`, or the driver's device felt it in the last
        // 10 s): "Hold the phones together" and its 10 s cover that.
        let touchUnderWay = state == .holding || driverFeltAt.map { time - $0 < Self.rideWordAfter } ?? false
        if let since = driverBesideSince, !wordOffered, ride.rideWord != nil, state != .touch, state != .confirming, !touchUnderWay,
           time - since >= Self.rideWordBesideDriver {
            offerRideWord(&out, time)
        }
        if !carAcross, !meetingHeld, state == .guiding, acrossJudge.isAcross(at: time), fixesAllowAcross(at: time) {
            carAcross = true
            holdForDriver(time)
            say(&out, time, [.guideCarAcross], ["name": ride.driverName], always: true)
            outbox.append(.carAcross)
        }
    }

    /// Feeds the across-the-street judge an estimate while guiding.
    mutating func noteAcross(_ estimate: RangeEstimate, at time: Double) {
        acrossJudge.note(time: time, distance: estimate.distance)
    }

    /// "Ask the driver for the ride word. Your ride word is river candle. If the driver says it, press w."
    mutating func offerRideWord(_ out: inout [GuideAction], _ time: Double) {
        guard let word = ride.rideWord else { return }
        wordOffered = true
        say(&out, time, [.guideAskRideWord, .guideRideWordIs], ["word": word], always: true)
    }

    /// `w`: offers the ride word, or (once offered) confirms with it.
    mutating func rideWordKey(_ out: inout [GuideAction], _ time: Double) {
        guard !isOver, state != .waiting, let word = ride.rideWord else { return }
        guard wordOffered else {
            offerRideWord(&out, time)
            return
        }
        guard !wordPending, state != .confirming else { return }
        wordPending = true
        say(&out, time, [.guideConfirming], [:], brief: true)
        outbox.append(.confirmByWord(word))
    }

    /// The ride service's answer to the ride word.
    mutating func wordAnswered(_ out: inout [GuideAction], _ time: Double, _ answer: ProofAnswer) {
        wordPending = false
        guard !isOver else { return }
        switch answer {
        case .confirmed:
            state = .confirmed
            silencePulse(&out)
            out.append(.cue(GuideCue(time: time, sound: .earcon(.touch))))
            say(&out, time, [.guideConfirmedByWord], ["name": ride.driverName, "vehicle": ride.vehicle], always: true)
            out += [.scan(.off), .finished]
        case .rejected(let reason):
            say(&out, time, [.guideRideWordRefused], ["reason": reason], always: true)
        case .awaitingCounterpart, .notSimultaneous:
            break
        }
    }
}
