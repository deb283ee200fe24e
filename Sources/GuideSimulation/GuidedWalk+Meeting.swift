import BeaconCore
import Foundation
import Guide
import RideSession

/// What the meeting at the kerb added up to in one walk (issue 22).
struct MeetingTally: Sendable {
    /// The passenger heard "Ask the driver for the ride word", and wants it said.
    var wantsWord = false
    /// The ladder said to try the touch at the car, then ask for the word; since when she is there.
    var wordAtTheCar = false
    var atCarSince: Double?
    var wordOffered = false
    var wordKeyAt: Double?
    var confirmedByWordAt: Double?
    /// Sounds the guide said the driver made, and how many of those no sound was made for.
    var soundsAnnounced = 0
    var soundsNotMade = 0
    var driverCameAt: Double?
    var lastWalking: Bool?
    var acrossSaid = false
    /// Since when the driver (or his window) has been within reach without a touch.
    var besideSince: Double?
    /// How long she waits beside the driver for "Touch detected" before pressing w, s (assumed).
    static let wordPatience = 10.0
    /// Times she did not catch the ride word and asked again.
    var wordMisheard = 0
}

extension GuidedWalk {
    /// The driver answered a sound request: the sound is made (horn, calls; the tick already
    /// plays), and the guide hears of the answer as the ride's event stream brings it.
    mutating func answered(_ sound: LocatorSoundName, at time: Double) -> [GuideAction] {
        if sound != .none, sound != .device, let scene = world.scene, let instruction = person.instruction,
           let made = scene.sound(for: instruction) {
            world.play(made.sound, offsets: made.offsets)
        }
        return guide.handle(.driverSounded(time: time, sound, age: 0))
    }

    /// Each step of the meeting: the driver looks, presses keys, walks over; the passenger asks
    /// for and answers with the ride word; the guide's posts reach the ride service.
    mutating func meetingStep(at now: Double, unixTime: (Double) -> Double, onDriver: (DriverCore.Action, Double) -> Void,
                              confirmWord: ((String) async -> ProofAnswer)?,
                              prove: (BeaconSide, TouchObservation) async -> ProofAnswer) async -> [GuideAction] {
        var out: [GuideAction] = []
        // A step detector's readings, on the street only: the open field is the earlier
        // simulator, which had none (and without them the across-the-street judge stays quiet).
        let walking = !world.walker.heldForDriver && !world.walker.atCar && world.isWalking
        if world.scene != nil, walking != meeting.lastWalking {
            meeting.lastWalking = walking
            out += guide.handle(.walking(time: now, walking))
        }
        if let scene = world.scene {
            // A driver who sees her on the pavement walks over (round by a crossing when she is
            // across the road, after saying so).
            let eyes = person.position ?? scene.street.driverSeat
            person.look(at: now, passengerDistance: world.trueDistance,
                        inSight: scene.street.inSight(eyes, world.walker.position), sinceArrival: now,
                        across: scene.street.placement == .acrossStreet)
            if let device = person.walk(to: world.walker.position, from: scene.pavementAcross, at: now, dt: SimulatedWorld.step) {
                if meeting.driverCameAt == nil { meeting.driverCameAt = now }
                world.moveDevice(to: device)
            }
        }
        for key in person.keysDue(at: now) {
            let actions = driver.handle(.key(time: now, key))
            out += await driverActs(actions, at: now, unixTime: unixTime, onDriver: onDriver, prove: prove)
        }
        for post in guide.takeOutbox() {
            switch post {
            case .carAcross:
                meeting.acrossSaid = true
                person.toldAcross(at: now)
                out += await driverActs(driver.handle(.passengerSaysAcross(time: unixTime(now))), at: now, unixTime: unixTime, onDriver: onDriver, prove: prove)
            case .confirmByWord(let word):
                // The ride service (or, without one, its rule: the ride's own word confirms a ride
                // not yet confirmed).
                let right = word == ride.rideWord
                let answer: ProofAnswer
                if let confirmWord {
                    answer = await confirmWord(word)
                } else {
                    answer = right && guide.state != .confirmed ? .confirmed : .rejected(right ? "already confirmed" : "wrong word")
                }
                if answer == .confirmed {
                    meeting.confirmedByWordAt = now
                    _ = driver.handle(.ride(.confirmed))
                }
                out += guide.handle(.wordAnswered(time: now, answer))
            }
        }
        // Beside the driver (he walked over, or she is at his window) and no touch felt: she
        // presses w for the ride word (the guide offers it on its own after "Hold the phones together").
        let beside = world.trueDistance <= 1.0 || world.walker.atCar && world.walker.position.distance(to: world.walker.approach ?? world.device) <= 0.7
        if beside, guide.state != .confirmed, guide.state != .touch, guide.state != .confirming {
            let since = meeting.besideSince ?? now
            meeting.besideSince = since
            if !meeting.wordOffered, ride.rideWord != nil, now - since >= MeetingTally.wordPatience {
                out += guide.handle(.key(time: now, .rideWord))
            }
        } else {
            meeting.besideSince = nil
        }
        // Told to try the touch at the car first: no touch `wordPatience` after she got there, she asks.
        let atTheCar = world.walker.atCar || world.trueDistance <= 2
        if meeting.wordAtTheCar, !meeting.wantsWord, atTheCar, guide.state != .confirmed, guide.state != .touch, guide.state != .confirming {
            let since = meeting.atCarSince ?? now
            meeting.atCarSince = since
            if now - since >= MeetingTally.wordPatience { meeting.wantsWord = true }
        } else if !atTheCar {
            meeting.atCarSince = nil
        }
        // Face to face (at the car, or the driver beside her), she asks and the driver says it.
        if meeting.wantsWord, atTheCar { person.askedForWord(at: now) }
        if person.saysWord(by: now), meeting.wordKeyAt == nil {
            // Heard right (she presses w after a moment), or not caught over the street's noise
            // at that moment: she asks again.
            if world.heardWordRight() {
                meeting.wordKeyAt = now + world.walker.parameters.confirmDelay
            } else {
                meeting.wordMisheard += 1
                person.repeatWord(at: now)
            }
        }
        if let at = meeting.wordKeyAt, now >= at {
            meeting.wordKeyAt = .infinity
            out += guide.handle(.key(time: now, .rideWord))
        }
        return out
    }

    /// What the passenger takes from the meeting's sentences.
    mutating func noteMeetingSpeech(_ utterance: Utterance) {
        for key in utterance.keys {
            switch key {
            case .guideDriverComing, .guideCarAcross:
                world.hear(.stayPut)
            case .guideAskRideWord:
                // Face to face: at the car, or with the driver beside her, she asks for it.
                meeting.wantsWord = true
                meeting.wordOffered = true
            case .guideRideWordAtTheCar:
                // The ladder's rung: the touch first at the car, the word only if no touch comes
                // (she asks once she has been there `wordPatience` with none).
                meeting.wordAtTheCar = true
                meeting.wordOffered = true
            case .guideDriverHorn, .guideDriverVoice:
                meeting.soundsAnnounced += 1
                let kinds: Set<StreetSound.Kind> = key == .guideDriverHorn ? [.horn] : [.raisedVoice, .shout]
                if world.scene != nil, !world.soundsMade.contains(where: { kinds.contains($0.kind) && world.time - $0.time < 15 }) {
                    meeting.soundsNotMade += 1
                }
            case .guideDriverDevice:
                meeting.soundsAnnounced += 1
                if !world.locatorSounding { meeting.soundsNotMade += 1 }
            default:
                break
            }
        }
    }
}
