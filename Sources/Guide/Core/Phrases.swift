import Foundation
import Phrasebook

/// Everything the guide says, by key; the sentences themselves are the phrasebook's (module
/// Phrasebook, `guide.` keys) in every language it has. `{distance}`, `{name}`, `{vehicle}` and
/// `{trend}` are filled in.
public enum PhraseKey: String, Sendable, CaseIterable, Codable {
    case waitingForDriver = "waiting_for_driver"
    case driverArrived = "driver_arrived"
    case searching
    case aboutMeters = "about_meters"
    case moreThanMeters = "more_than_meters"
    case veryClose = "very_close"
    case gettingCloser = "getting_closer"
    case movingAway = "moving_away"
    case signalLost = "signal_lost"
    case signalBack = "signal_back"
    case touchDetected = "touch_detected"
    case holdTogether = "hold_together"
    case notTouching = "not_touching"
    case confirming
    case waitingForDriverProof = "waiting_for_driver_proof"
    case confirmed
    case proofRejected = "proof_rejected"
    case whereIsDriver = "where_is_driver"
    case distanceAbout = "distance_about"
    case distanceMoreThan = "distance_more_than"
    case distanceVeryClose = "distance_very_close"
    /// "Where is my driver" when the level supports no number and no bound of 2 m or more.
    case distanceNearby = "distance_nearby"
    /// "Where is my driver" when nothing about the distance is sure (issue 23: without the pair's
    /// line a bag's 1 m reads like a hand's 30 m; "nearby" would be a claim, and often false).
    case distanceUnknown = "distance_unknown"
    case trendCloser = "trend_closer"
    case trendFarther = "trend_farther"
    case trendSteady = "trend_steady"
    case driverNotHeard = "driver_not_heard"
    case serviceUnreachable = "service_unreachable"
    case serviceBack = "service_back"
    case rideCancelled = "ride_cancelled"
    case goodbye
    case carTicking = "car_ticking"
    case carAlreadyTicking = "car_already_ticking"
    case locatorUnavailable = "locator_unavailable"
    case turnOnTheSpot = "turn_on_the_spot"
    case carAhead = "car_ahead"
    case soundAsked = "sound_asked"
    case driverHorn = "driver_horn"
    case driverVoice = "driver_voice"
    case driverDevice = "driver_device"
    case driverCannotSound = "driver_cannot_sound"
    case driverComing = "driver_coming"
    case carAcross = "car_across"
    case askRideWord = "ask_ride_word"
    case rideWordIs = "ride_word_is"
    case confirmedByWord = "confirmed_by_word"
    case rideWordRefused = "ride_word_refused"
    /// Arrival before the driver's signal is heard: no "follow the sound" yet (issue 25).
    case driverArrivedSearching = "driver_arrived_searching"
    /// The first signal after such an arrival.
    case signalFound = "signal_found"
    /// "Press Enter" (a terminal) or "Press the Confirm button" (a front end feeding the keys):
    /// `GuideCore.confirmControl`.
    case confirmEnter = "confirm_enter"
    case confirmButton = "confirm_button"
    /// The far field (issue 35, `GuideCore+FarField`): the car along the pavement by the
    /// satellite fixes, through the compass or relative to the street; a distance the fixes'
    /// accuracies support; the car's kerb on her side.
    case farAhead = "far_ahead"
    case farBehind = "far_behind"
    case farLeft = "far_left"
    case farRight = "far_right"
    case farStreetLeft = "far_street_left"
    case farStreetRight = "far_street_right"
    case farWhichWay = "far_which_way"
    case farAboutMeters = "far_about_meters"
    case farMoreThanMeters = "far_more_than_meters"
    case farThisSide = "far_this_side"
    /// Meeting halfway: the driver walks to her while she walks on along the pavement.
    case driverComingHalfway = "driver_coming_halfway"

    /// Phrases the audio scheduler never drops or delays behind the rate limit: each changes
    /// what the passenger must do now (stop, touch, get in), so hearing it late is worse than
    /// cutting the phrase before it.
    public var isUrgent: Bool {
        switch self {
        case .driverArrived, .driverArrivedSearching, .signalFound, .signalLost, .touchDetected, .confirmed, .carTicking, .carAhead, .driverHorn, .driverVoice,
             .driverDevice, .driverCannotSound, .driverComing, .driverComingHalfway, .carAcross, .askRideWord, .confirmedByWord: true
        default: false
        }
    }
}

extension PhraseKey {
    /// A far-field direction along the pavement (the first phrase of a far-field sentence).
    public var isFarDirection: Bool {
        [.farAhead, .farBehind, .farLeft, .farRight, .farStreetLeft, .farStreetRight, .farWhichWay].contains(self)
    }

    /// A far-field distance claim (`FarField.spokenBand`).
    public var isFarDistance: Bool { self == .farAboutMeters || self == .farMoreThanMeters }
}

extension Utterance {
    /// Whether any phrase in it is urgent (`PhraseKey.isUrgent`).
    public var isUrgent: Bool { keys.contains { $0.isUrgent } }
}

/// One thing to say: a key and the values for its placeholders.
public struct Phrase: Equatable, Sendable, CustomStringConvertible {
    public var key: PhraseKey
    public var arguments: [String: String]

    public init(_ key: PhraseKey, _ arguments: [String: String] = [:]) {
        self.key = key
        self.arguments = arguments
    }

    /// The English text (for logs and transcripts).
    public var description: String { PhraseTable.english.text(for: self) }
}

/// The guide's sentences in one language, from the one phrasebook (`Phrasebook`, module
/// Phrasebook: key `guide.` + the phrase key). `{distance}` numbers choose the plural form.
public struct PhraseTable: Sendable {
    public let language: String
    public let book: Phrasebook

    public init(_ language: Language) {
        self.language = language.rawValue
        book = Phrasebook(language)
    }

    public static let english = PhraseTable(.en)

    /// The table for `language` ("es", "fr-FR"); English when the phrasebook has no such language.
    public static func table(for language: String) -> PhraseTable {
        PhraseTable(Language(code: language) ?? .en)
    }

    /// Each key's text with its placeholders unfilled (a plural entry's "other" form).
    public var entries: [PhraseKey: String] {
        Dictionary(uniqueKeysWithValues: PhraseKey.allCases.map { key in
            let entry = Phrasebook.entry(key.phraseID, in: book.language) ?? Phrasebook.entry(key.phraseID, in: .en)
            return (key, entry?.forms.last ?? key.rawValue)
        })
    }

    public func text(for phrase: Phrase) -> String {
        var arguments: [String: PhraseValue] = [:]
        for (name, value) in phrase.arguments {
            // A whole number chooses the plural form and is written the language's way.
            arguments[name] = name == "distance" ? Int(value).map(PhraseValue.count) ?? .text(value) : .text(value)
        }
        // A trailing empty placeholder would leave a dangling space.
        return book(phrase.key.phraseID, arguments).trimmingCharacters(in: .whitespaces)
    }
}

extension PhraseKey {
    /// The phrasebook's key for this phrase.
    public var phraseID: PhraseID {
        // Every case has its catalogue key (PhrasebookTests and GuideTests check it).
        PhraseID(rawValue: "guide." + rawValue) ?? .guideSearching
    }
}
