import BeaconCore
import RideWire
import Phrasebook

/// The keys the driver answers with (`driver arrive`): one each.
public enum DriverKey: Sendable, Equatable {
    /// Enter: confirm the touch.
    case confirm
    /// Yes: the sound asked for was made (y; s in Spanish, o in French).
    case done
    /// No: cannot make a sound now (n).
    case cannot
    /// c: "I'm coming to you" (the driver walks to the passenger).
    case coming
    /// x: the car is across the street from the passenger; the driver comes round.
    case across
    /// w: show and say the ride word.
    case rideWord
    /// l: the driver cannot leave the car (his answer to her come request).
    case staying

    /// The key a typed character means (either case), nil for any other. Yes and no are the
    /// device language's letters (`book`: y/n, s/n for sí/no, o/n for oui/non), the ones its
    /// prompts name; y stays yes in every language, as no other key uses it.
    public init?(character: Character, in book: Phrasebook = .english) {
        let typed = character.lowercased()
        switch typed {
        case "\n", "\r": self = .confirm
        case book(.driverKeyYes), "y": self = .done
        case book(.driverKeyNo): self = .cannot
        case "c": self = .coming
        case "x": self = .across
        case "w": self = .rideWord
        case "l": self = .staying
        default: return nil
        }
    }
}

/// What the driver is asked to do for a locator request, from the quietest: the device's tick
/// (heard only near), the driver's voice through the open window, the driver's voice from the
/// kerb, two short taps on the horn. Each has a reach, m, within which a passenger standing on
/// a street hears it over traffic: the street simulator's hearing (GuideSimulation's
/// `SoundReach`, docs/SIMULATOR.md) at 67.5 dB(A) of traffic, the window open; a test keeps the
/// two equal. A quieter street carries each farther, a busier one less far.
public enum LocatorInstruction: String, Sendable, Equatable, CaseIterable {
    /// The device's tick, heard only near.
    case device
    /// The driver's voice through the open window.
    case voiceWindow = "voice_window"
    /// The driver's voice from the kerb.
    case voiceKerb = "voice_kerb"
    /// Two short taps on the horn.
    case horn

    /// The sound the passenger is told of (`locator_answered`).
    public var sound: LocatorSoundName {
        switch self {
        case .device: .device
        case .voiceWindow, .voiceKerb: .voice
        case .horn: .horn
        }
    }

    /// Metres within which it is chosen. A call through the window carries no farther than the
    /// device's tick (about a metre over traffic), so with the tick allowed it is not chosen.
    public var reach: Double {
        switch self {
        case .device: 1.1
        case .voiceWindow: 1.1
        case .voiceKerb: 14
        case .horn: 300
        }
    }

    /// The quietest allowed instruction whose reach covers `farthest` (the passenger's distance's
    /// upper bound, nil when the passenger's beacon is not heard: then the loudest allowed), or
    /// nil when the deployment allows no sound.
    public static func choose(farthest: Double?, allowed: [LocatorSoundName]) -> LocatorInstruction? {
        let candidates = allCases.filter { allowed.contains($0.sound) }
        guard let loudest = candidates.last else { return nil }
        guard let farthest, farthest.isFinite else { return loudest }
        return candidates.first { $0.reach >= farthest } ?? loudest
    }

    /// What the driver is told to do, by name.
    public func words(passenger: String, in book: Phrasebook = .english) -> String {
        let name: [String: PhraseValue] = ["name": .text(passenger)]
        return switch self {
        case .device: book(.driverAskDevice, name)
        case .voiceWindow: book(.driverAskVoiceWindow, name)
        case .voiceKerb: book(.driverAskVoiceKerb, name)
        case .horn: book(.driverAskHorn, name)
        }
    }
}

/// The driver's side of the meeting at the kerb, for `DriverCore`: the locator request being
/// answered, and the passenger's distance for the sound's choice.
public struct DriverMeeting: Sendable {
    /// The passenger's name as the driver says it.
    public var passengerName: String
    /// Sounds the deployment allows (`--locator-sounds`).
    public var sounds: [LocatorSoundName]
    /// The two words both devices derive from the ride key (`RideWord`), nil if unknown.
    public var rideWord: String?
    /// The passenger's accessibility notes, said with her distance so the driver can look for her.
    public var notes: String?
    /// The passenger gives up waiting for an answer after this long, s (the guide's own limit).
    public static let answerWindow = 10.0
    /// The passenger's estimate counts for the sound's choice this long after it was heard, s.
    public static let estimateFreshness = 5.0

    /// The meeting's facts; the defaults: no name, every sound, no ride word, no notes.
    public init(passengerName: String = "Your passenger", sounds: [LocatorSoundName] = LocatorSoundName.makeable,
                rideWord: String? = nil, notes: String? = nil) {
        self.passengerName = passengerName
        self.sounds = sounds
        self.rideWord = rideWord
        self.notes = notes
    }
}

/// What the driver's device may say of the passenger's distance: a claim it can stand behind,
/// or nothing. The guide's claim code implements it (`DriverDistanceClaims` in Guide), so the
/// driver hears only what the guide would say; RideSession cannot see Guide, hence the seam.
public protocol DistanceClaims: Sendable {
    /// The words for this estimate ("about 15 meters away", "getting closer"), or nil when
    /// nothing new and true is to be said.
    mutating func claim(_ estimate: RangeEstimate, at time: Double) -> String?
}
