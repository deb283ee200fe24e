import BeaconCore
import Foundation
import GuideAudio
import Phrasebook
import RideSession

/// What the guide knows about the ride it is guiding to.
public struct GuideRide: Sendable {
    public var rideID: String
    public var driverName: String
    public var vehicle: String
    public var identity: RotatingIdentity
    /// The ride word both devices derive from the ride key (`RideWord.phrase`); nil: the
    /// runtime has none, and the guide never offers it.
    public var rideWord: String?
    /// The driver's phone number, for the escalation ladder's last rung ("Call Ben on …");
    /// nil: the ride service gives none (no ride carries one yet), and the rung names the
    /// dispatcher.
    public var driverPhone: String?
    /// Whether the driver's device may tick by itself (its `--locator-sounds` allows `device`):
    /// the ladder's phone rung is passed over without it, since his device would ask him again
    /// instead (`DriverCore`) and "Asking Ben's phone for a sound" would be false.
    public var phoneMaySound: Bool

    public init(rideID: String, driverName: String, vehicle: String, identity: RotatingIdentity, rideWord: String? = nil,
                driverPhone: String? = nil, phoneMaySound: Bool = true) {
        self.phoneMaySound = phoneMaySound
        self.rideID = rideID
        self.driverName = driverName
        self.vehicle = vehicle
        self.identity = identity
        self.rideWord = rideWord
        self.driverPhone = driverPhone
    }
}

/// Keys the passenger presses while guided.
public enum GuideKey: Sendable, Equatable {
    /// r: repeat the last phrase.
    case repeatLast
    /// d: where is my driver (distance and trend now).
    case whereIsDriver
    /// f: find the direction (turn-to-find).
    case findDirection
    /// q: stop guiding.
    case quit
    /// Enter: confirm the ride after a touch.
    case confirm
    /// s: ask the car to sound its locator.
    case soundLocator
    /// w: the ride word (first press: say it; once said: the driver said it too, confirm).
    case rideWord

    /// The key for one typed character, nil for others.
    public init?(character: Character) {
        switch character {
        case "r", "R": self = .repeatLast
        case "d", "D": self = .whereIsDriver
        case "f", "F": self = .findDirection
        case "q", "Q": self = .quit
        case "s", "S": self = .soundLocator
        case "w", "W": self = .rideWord
        case "\n", "\r": self = .confirm
        default: return nil
        }
    }
}

/// Everything that happens to the guide. Times are seconds on one monotonic clock; `unixTime`
/// (wall clock) is only used to pick the identity slot.
public enum GuideInput: Sendable {
    case arrived(time: Double)
    case sighting(time: Double, unixTime: Double, rssi: Double, beacon: IBeacon)
    /// A compass reading: the phone (at the passenger's chest) faces `degrees` clockwise from
    /// north. Only turn-to-find uses it; without readings it times the turn (`TurnToFind`).
    case heading(time: Double, degrees: Double)
    case tick(time: Double)
    case key(time: Double, GuideKey)
    case proofAnswered(time: Double, ProofAnswer)
    /// The ride's event stream says the driver's device felt the touch (its accepted proof's
    /// observation window, wall-clock seconds).
    case driverFeltTouch(time: Double, from: Double, until: Double)
    /// The ride's event stream says it is confirmed (perhaps by the driver's proof, last).
    case rideConfirmed(time: Double)
    case rideCancelled(time: Double)
    /// The ride service could (not) be reached.
    case service(time: Double, reachable: Bool)
    /// The answer to a `.requestLocator` action.
    case locatorAnswered(time: Double, LocatorAnswer)
    /// The ride's event stream says the driver answered the locator request: the sound made, or
    /// `none`; `age`, s, how long before `time` the driver answered (a replayed history's old
    /// answers are ignored).
    case driverSounded(time: Double, LocatorSoundName, age: Double)
    /// The ride's event stream says the driver is walking to the passenger (`coming`), or that
    /// the car is across the street (`across`, said by the driver).
    case driverMeeting(time: Double, MeetingMove)
    /// Whether the passenger is walking (a step detector; the simulator's walker). Without
    /// readings `AcrossTheStreet` judges from the ranging alone, more slowly.
    case walking(time: Double, Bool)
    /// The answer to a `.confirmByWord` post (`GuidePost`).
    case wordAnswered(time: Double, ProofAnswer)
    /// The latest satellite fixes (issue 35): hers, and the driver's device's through the ride
    /// service (its course as the car parked); either may be nil when not (yet) known. A phone
    /// reports about once a second; the far field speaks from them until the Bluetooth cues
    /// take over (`GuideCore+FarField`).
    case positions(time: Double, own: GeoFix?, driver: GeoFix?)
}

/// What the guide asks the ride service besides proofs and the locator, taken from
/// `GuideCore.outbox` after each input (kept out of `GuideAction` so code that switches over
/// every action keeps compiling; the runtime answers with `.wordAnswered`).
public enum GuidePost: Equatable, Sendable {
    /// The passenger heard the driver say the ride word: confirm the ride with it.
    case confirmByWord(String)
    /// The car is across the street: the driver's device tells the driver where to cross.
    case carAcross
}

/// How the radio should scan: before the driver arrives a duty cycle saves battery.
public enum ScanMode: String, Sendable, Equatable {
    case dutyCycled = "duty_cycled"
    case continuous
    case off
}

/// Words to speak: the phrases it was made of (for tests and translation) and the text.
public struct Utterance: Equatable, Sendable, CustomStringConvertible {
    public var keys: [PhraseID]
    public var text: String
    public var description: String { text }
}

/// One audible cue, stamped with the guide time it was decided at.
public struct GuideCue: Equatable, Sendable, CustomStringConvertible {
    public enum Sound: Equatable, Sendable {
        case earcon(Earcon)
        case speech(Utterance)
    }

    public var time: Double
    public var sound: Sound

    /// A short label for counts: the earcon's name, or the first phrase's `guideName`.
    public var kind: String {
        switch sound {
        case .earcon(let earcon): earcon.rawValue
        case .speech(let utterance): "say:" + (utterance.keys.first?.guideName ?? "")
        }
    }

    public var description: String {
        switch sound {
        case .earcon(let earcon): "[\(earcon.rawValue)]"
        case .speech(let utterance): "\"\(utterance.text)\""
        }
    }
}

/// What the guide asks its runtime to do.
public enum GuideAction: Equatable, Sendable {
    case cue(GuideCue)
    case scan(ScanMode)
    /// The proximity pulse's interval, s; nil silences it (signal lost, touch, the end).
    /// Silence of the pulse means "no signal", never "arrived".
    case pulse(interval: Double?)
    case postProof(TouchObservation)
    /// Ask the ride service to make the car sound its locator; answer with `.locatorAnswered`.
    case requestLocator
    /// Guiding is over (confirmed, cancelled or quit); play out what is queued and stop.
    case finished
}

public enum GuideState: String, Sendable, Equatable {
    /// `holding`: this device feels the touch, the driver's has not said it does (yet).
    case waiting, searching, guiding, signalLost = "signal_lost", holding, touch, confirming, confirmed, cancelled, stopped
}
