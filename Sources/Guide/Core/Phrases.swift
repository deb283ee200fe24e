import Foundation

/// Everything the guide says, by key: one table per language, so a translation is one new
/// table and nothing else. `{distance}`, `{name}`, `{vehicle}` and `{trend}` are filled in.
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

    /// Phrases the audio scheduler never drops or delays behind the rate limit: each changes
    /// what the passenger must do now (stop, touch, get in), so hearing it late is worse than
    /// cutting the phrase before it.
    public var isUrgent: Bool {
        switch self {
        case .driverArrived, .signalLost, .touchDetected, .confirmed, .carTicking, .carAhead, .driverHorn, .driverVoice,
             .driverDevice, .driverCannotSound, .driverComing, .carAcross, .askRideWord, .confirmedByWord: true
        default: false
        }
    }
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

public struct PhraseTable: Sendable {
    public let language: String
    public let entries: [PhraseKey: String]

    public init(language: String, entries: [PhraseKey: String]) {
        self.language = language
        self.entries = entries
    }

    public static let english = PhraseTable(language: "en", entries: [
        .waitingForDriver: "Waiting for your driver.",
        .driverArrived: "Your driver has arrived. {name}, {vehicle}. Follow the sound.",
        .searching: "Searching for your driver's signal.",
        .aboutMeters: "About {distance} meters.",
        .moreThanMeters: "More than {distance} meters.",
        .veryClose: "Very close, reach out.",
        .gettingCloser: "Getting closer.",
        .movingAway: "Moving away.",
        .signalLost: "Signal lost, keep still.",
        .signalBack: "Signal back.",
        .touchDetected: "Touch detected. Press Enter to confirm your ride.",
        .holdTogether: "Hold the phones together.",
        .notTouching: "Not touching yet. Hold your phone to your driver's phone.",
        .confirming: "Confirming.",
        .waitingForDriverProof: "Waiting for your driver to confirm.",
        .confirmed: "Ride confirmed. Your driver is {name}, {vehicle}.",
        .proofRejected: "Could not confirm: {reason}. Touch again.",
        .whereIsDriver: "Your driver is {distance}. {trend}",
        .distanceAbout: "about {distance} meters away",
        .distanceMoreThan: "more than {distance} meters away",
        .distanceVeryClose: "within reach",
        .distanceNearby: "nearby",
        .distanceUnknown: "heard, but how far is not sure yet",
        .trendCloser: "You are getting closer.",
        .trendFarther: "You are moving away.",
        .trendSteady: "",
        .driverNotHeard: "Your driver's signal is not heard.",
        .serviceUnreachable: "Cannot reach the ride service, retrying.",
        .serviceBack: "Ride service reached.",
        .rideCancelled: "Your ride was cancelled.",
        .goodbye: "Guide stopped.",
        .carTicking: "The car is ticking. Walk towards the sound.",
        .carAlreadyTicking: "The car is already ticking. Walk towards the sound.",
        .locatorUnavailable: "The car cannot sound now: {reason}.",
        .turnOnTheSpot: "Hold the phone against your chest and turn slowly on the spot.",
        .carAhead: "Stop. The car is ahead of you.",
        .soundAsked: "Asking {name} for a sound.",
        .driverHorn: "{name} is sounding the horn. Walk towards the sound.",
        .driverVoice: "{name} is calling your name. Walk towards the voice.",
        .driverDevice: "{name}'s phone is ticking. Walk towards the sound.",
        .driverCannotSound: "{name} cannot make a sound now; let's turn to find the car.",
        .driverComing: "{name} is walking to you. Stay where you are.",
        .carAcross: "Your car is across the street. Stay on the pavement; {name} is coming to your side.",
        .askRideWord: "Ask the driver for the ride word.",
        .rideWordIs: "Your ride word is {word}. If the driver says it, press w.",
        .confirmedByWord: "Ride confirmed by the ride word. Your driver is {name}, {vehicle}.",
        .rideWordRefused: "The ride word did not confirm the ride: {reason}.",
    ])

    public static func table(for language: String) -> PhraseTable {
        switch language {
        default: english
        }
    }

    public func text(for phrase: Phrase) -> String {
        var text = entries[phrase.key] ?? Self.english.entries[phrase.key] ?? phrase.key.rawValue
        for (name, value) in phrase.arguments {
            text = text.replacingOccurrences(of: "{\(name)}", with: value)
        }
        // A trailing empty placeholder would leave a dangling space.
        return text.trimmingCharacters(in: .whitespaces)
    }
}
