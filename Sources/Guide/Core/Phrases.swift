import Foundation
import Phrasebook

/// Everything the guide says is a phrasebook key (module Phrasebook, the `guide.` cases of
/// `PhraseID`) in every language the phrasebook has. `{distance}`, `{name}`, `{vehicle}` and
/// `{trend}` are filled in. What follows are the guide's own notions about those keys.
extension PhraseID {
    /// The guide's phrases: the phrasebook's `guide.` keys.
    public static let guidePhrases = allCases.filter { $0.rawValue.hasPrefix(guidePrefix) }

    private static let guidePrefix = "guide."

    /// The name without the phrasebook's `guide.` prefix ("signal_lost"): what cue counts
    /// (`GuideCue.kind`, "say:signal_lost"), walk summaries and the benchmarks' tallies have
    /// always called a phrase, so their readers keep working.
    public var guideName: String {
        rawValue.hasPrefix(Self.guidePrefix) ? String(rawValue.dropFirst(Self.guidePrefix.count)) : rawValue
    }

    /// Phrases the audio scheduler never drops or delays behind the rate limit: each changes
    /// what the passenger must do now (stop, touch, get in), so hearing it late is worse than
    /// cutting the phrase before it.
    public var isUrgent: Bool {
        switch self {
        case .guideDriverArrived, .guideDriverArrivedSearching, .guideSignalFound, .guideSignalLost, .guideTouchDetected,
             .guideConfirmed, .guideCarTicking, .guideCarAhead, .guideDriverHorn, .guideDriverVoice, .guideDriverDevice,
             .guideDriverCannotSound, .guideDriverComing, .guideDriverComingHalfway, .guideCarAcross, .guideAskRideWord,
             .guideConfirmedByWord, .guideDriverCannotSoundNow, .guideRideWordAtTheCar, .guideCallDriver, .guideCallDispatcher,
             // The ladder's steps (`Escalation`): each tells her what is being tried for her now.
             .guideDriverNoAnswer, .guidePhoneSoundAsked, .guidePhoneNoAnswer: true
        default: false
        }
    }

    /// A far-field direction along the pavement (the first phrase of a far-field sentence).
    public var isFarDirection: Bool {
        [.guideFarAhead, .guideFarBehind, .guideFarLeft, .guideFarRight, .guideFarStreetLeft, .guideFarStreetRight,
         .guideFarWhichWay].contains(self)
    }

    /// A far-field distance claim (`FarField.spokenBand`).
    public var isFarDistance: Bool { self == .guideFarAboutMeters || self == .guideFarMoreThanMeters }
}

extension Utterance {
    /// Whether any phrase in it is urgent (`PhraseID.isUrgent`).
    public var isUrgent: Bool { keys.contains { $0.isUrgent } }
}

/// One thing to say: a key and the values for its placeholders.
public struct Phrase: Equatable, Sendable, CustomStringConvertible {
    public var key: PhraseID
    public var arguments: [String: String]

    public init(_ key: PhraseID, _ arguments: [String: String] = [:]) {
        self.key = key
        self.arguments = arguments
    }

    /// The English text (for logs and transcripts).
    public var description: String { PhraseTable.english.text(for: self) }
}

/// The guide's sentences in one language, from the one phrasebook (`Phrasebook`, module
/// Phrasebook). `{distance}` numbers choose the plural form.
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

    /// Each guide phrase's text with its placeholders unfilled (a plural entry's "other" form).
    public var entries: [PhraseID: String] {
        Dictionary(uniqueKeysWithValues: PhraseID.guidePhrases.map { key in
            let entry = Phrasebook.entry(key, in: book.language) ?? Phrasebook.entry(key, in: .en)
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
        return book(phrase.key, arguments).trimmingCharacters(in: .whitespaces)
    }
}
