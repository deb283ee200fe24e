import BeaconCore
import Foundation
import Phrasebook
import RideRules
import RideStore
import RideWire

/// What the passenger can do at the kerb once her driver has arrived (issue 37, point 2 and
/// "Build"): ask him to come to her, ask for a sound, hear the ride word, message him. Each
/// control posts to the /v1 API with her session, and each answer is said on the page as it
/// happens, from the ride's stream: "Ben's phone has your request" only after his device's
/// `come_received`, "Ben is coming to you" only after his `come_answered`. The sentences are
/// rendered here, in her language with his name, for the page's script to say.
struct PassengerKerb: Sendable {
    struct Preset: Sendable {
        var value, sentence: String
    }

    var heading, comeLabel, soundLabel, wordLabel, wordSentence, messageLabel, messageSend: String
    var presets: [Preset]
    /// Seconds she waits for his answer to a come request (`RideLimits.comeAnswerWait`).
    var answerWait: Int
    /// Sentences the script says, each when its event happened.
    var asking, askedAlready, received, coming, staying, noAnswer, receivedNoAnswer: String
    var soundAsked, soundAskedAlready, horn, voice, device, noSound: String
    var messageSent, failed: String

    /// `wordLanguage`: her account's language (`RideParty.language`), the one both devices say
    /// the ride word in (`RideWord.phrase(rideKey:language:)`), whatever language the page is in.
    init(driver: String, rideKey: Data, wordLanguage: String, book: Phrasebook) {
        let name: [String: PhraseValue] = ["name": .text(driver)]
        func said(_ summary: PhraseID, _ body: PhraseID? = nil) -> String {
            book(summary, name) + "." + (body.map { " " + book($0, name) } ?? "")
        }
        heading = book(.kerbHeading)
        comeLabel = book(.kerbComeButton, name)
        soundLabel = book(.kerbSoundButton, name)
        wordLabel = book(.kerbWordButton)
        wordSentence = book(.kerbWordSentence, ["word": .text(RideWord.phrase(rideKey: [UInt8](rideKey), language: wordLanguage)), "name": .text(driver)])
        messageLabel = book(.kerbMessageLabel, name)
        messageSend = book(.kerbMessageSend)
        presets = MessagePreset.allCases.compactMap { preset in
            PhraseID(rawValue: "message.preset." + preset.rawValue).map { Preset(value: preset.rawValue, sentence: book($0)) }
        }
        answerWait = Int(RideLimits.comeAnswerWait)
        asking = said(.comeAskingSummary, .comeAnswerHere)
        askedAlready = said(.comeAskedAlreadySummary, .comeAnswerHere)
        received = said(.comeReceivedSummary, .comeAnswerHere)
        coming = said(.comeComingSummary, .followStayWhereYouAre)
        staying = said(.comeStayingSummary, .kerbNextStep)
        noAnswer = said(.comeNoAnswerSummary, .kerbNextStep)
        receivedNoAnswer = said(.comeReceivedNoAnswerSummary, .kerbNextStep)
        soundAsked = book(.guideSoundAsked, name)
        soundAskedAlready = book(.kerbSoundAskedAlready, name)
        horn = said(.followHornSummary, .followWalkToSound)
        voice = said(.followVoiceSummary, .followWalkToVoice)
        device = said(.followDeviceSummary, .followWalkToSound)
        noSound = said(.followNoSoundSummary, .kerbNextStep)
        messageSent = book(.kerbMessageSent, name)
        failed = book(.kerbFailed, name)
    }
}
