import Guide

/// The spoken commands, English only: Debian ships PocketSphinx's model for US English alone
/// (`pocketsphinx-en-us`); there is no Spanish or French model in Debian 12.
///
/// Each is a phrase of three or more syllables, not the bare words ("repeat", "sound",
/// "help"): keyword spotting finds a one- or two-syllable word in almost any speech (about 1 300
/// false triggers an hour, nearly all "help"), a longer phrase rarely (BENCHMARKS.md, "Voice
/// commands"). The meaning of each is the issue's: "repeat that" repeats, "where is my car" asks
/// where the car is, "play the sound" is the locator, "cancel my ride" asks to cancel, "what can
/// I say" is help.
public enum VoiceCommand: String, CaseIterable, Sendable, Equatable {
    case repeatLast = "repeat that"
    case whereIsCar = "where is my car"
    case sound = "play the sound"
    case cancelRide = "cancel my ride"
    case help = "what can i say"
    /// The spoken confirmation "cancel my ride" asks for; heard only in the seconds after it.
    case yesCancel = "yes cancel my ride"

    /// The keyphrase as PocketSphinx spots it.
    public var phrase: String { rawValue }

    public init?(phrase: String) {
        self.init(rawValue: phrase.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

/// What a command makes happen: a guide key (the same as the keyboard's), words to say, or
/// the ride cancelled (only after the spoken yes).
public enum VoiceOutcome: Equatable, Sendable {
    case key(GuideKey)
    case say(String)
    case cancelRide
}

/// The sentences the voice commands answer with. English: the commands are English only.
public struct VoiceSentences: Sendable {
    public var help = "Say: repeat that; where is my car; play the sound, for the car's sound; cancel my ride; or what can I say."
    public var confirmCancel = "To cancel the ride, say: yes, cancel my ride. Anything else keeps it."
    public var cancelling = "Cancelling the ride."
    public var kept = "The ride is kept."
    public init() {}
}

/// The spoken dialogue around the commands, a pure state machine: "cancel my ride" only asks;
/// the ride is cancelled only if "yes cancel my ride" follows within `confirmWindow` seconds, and
/// a "yes cancel my ride" at any other time does nothing.
public struct VoiceDialogue: Sendable {
    public static let confirmWindow = 10.0
    public let sentences: VoiceSentences
    public private(set) var cancelAskedAt: Double?

    public init(sentences: VoiceSentences = VoiceSentences()) { self.sentences = sentences }

    public mutating func heard(_ command: VoiceCommand, at time: Double) -> [VoiceOutcome] {
        var out = expire(at: time)
        switch command {
        case .repeatLast: out.append(.key(.repeatLast))
        case .whereIsCar: out.append(.key(.whereIsDriver))
        case .sound: out.append(.key(.soundLocator))
        case .help: out.append(.say(sentences.help))
        case .cancelRide:
            cancelAskedAt = time
            out.append(.say(sentences.confirmCancel))
        case .yesCancel:
            guard cancelAskedAt != nil else { break }
            cancelAskedAt = nil
            out += [.say(sentences.cancelling), .cancelRide]
        }
        return out
    }

    /// The question expires: the ride is kept, and said so.
    public mutating func expire(at time: Double) -> [VoiceOutcome] {
        guard let asked = cancelAskedAt, time - asked > Self.confirmWindow else { return [] }
        cancelAskedAt = nil
        return [.say(sentences.kept)]
    }
}
