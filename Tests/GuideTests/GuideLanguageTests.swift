import BeaconCore
@testable import Guide
import Phrasebook
import RideSession
import Testing

/// Issue 26: the guide speaks the phrasebook's language; switching it changes every sentence,
/// numbers choose their plural form, and the spoken-truth scoring still reads the keys.
@Suite struct GuideLanguageTests {
    static let ride = GuideRide(rideID: "ride-1", driverName: "Ben", vehicle: "blue Toyota Prius", identity: ScriptedGuide.identity)

    /// The spoken sentences of a short scripted ride: waiting, arrived, where is my driver,
    /// the service lost and back, cancelled.
    static func said(in language: Language) -> [String] {
        var core = GuideCore(ride: ride, verbosity: .brief, phrases: PhraseTable(language), aids: .locator)
        var actions = core.start(time: 0)
        actions += core.handle(.arrived(time: 0))
        actions += core.handle(.key(time: 1, .whereIsDriver))
        actions += core.handle(.service(time: 2, reachable: false))
        actions += core.handle(.rideCancelled(time: 3))
        return actions.compactMap { action in
            if case .cue(let cue) = action, case .speech(let utterance) = cue.sound { utterance.text } else { nil }
        }
    }

    @Test func switchingTheLanguageChangesEverySentence() {
        let english = Self.said(in: .en)
        #expect(english.first == "Waiting for your driver.")
        #expect(english.contains("Your driver has arrived. Ben, blue Toyota Prius. Searching for the signal; stay where you are."))
        #expect(english.contains("Your ride was cancelled."))
        let spanish = Self.said(in: .es)
        #expect(spanish.first == "Esperando a tu conductor.")
        #expect(spanish.contains("Tu conductor ha llegado. Ben, blue Toyota Prius. Buscando la señal; quédate donde estás."))
        #expect(spanish.contains("Tu viaje se ha cancelado."))
        let french = Self.said(in: .fr)
        #expect(french.first == "En attente de votre chauffeur.")
        #expect(french.contains("Votre chauffeur est là. Ben, blue Toyota Prius. Recherche du signal ; restez où vous êtes."))
        #expect(french.contains("Votre course a été annulée."))
        // The same moments, each said once in each language.
        #expect(english.count == spanish.count && spanish.count == french.count)
        for (en, es) in zip(english, spanish) { #expect(en != es) }
    }

    @Test func distancesChooseTheirPluralForm() {
        let table = PhraseTable(.fr)
        #expect(table.text(for: Phrase(.guideAboutMeters, ["distance": "1"])) == "Environ 1 mètre.")
        #expect(table.text(for: Phrase(.guideMoreThanMeters, ["distance": "5"])) == "Plus de 5 mètres.")
        #expect(PhraseTable(.es).text(for: Phrase(.guideWhereIsDriver, ["distance": "a unos 3 metros", "trend": ""])) == "Tu conductor está a unos 3 metros.")
        #expect(PhraseTable.english.text(for: Phrase(.guideMoreThanMeters, ["distance": "5"])) == "More than 5 meters.")
    }

    /// Cue counts ("say:signal_lost"), walk summaries and benchmark tallies name a phrase without
    /// the phrasebook's `guide.` prefix, as they did before the guide spoke `PhraseID`.
    @Test func cueCountsKeepTheShortPhraseNames() {
        // Every guide phrase is found (69 before issue 37 added the ladder's and the hardware's),
        // and no two share a short name.
        #expect(PhraseID.guidePhrases.count >= 69 && PhraseID.guidePhrases.contains(.guideCallDispatcher))
        #expect(Set(PhraseID.guidePhrases.map(\.guideName)).count == PhraseID.guidePhrases.count)
        for key in PhraseID.guidePhrases { #expect("guide." + key.guideName == key.rawValue, "\(key)") }
        let said = GuideCue(time: 0, sound: .speech(Utterance(keys: [.guideSignalLost, .guideCarAhead], text: "")))
        #expect(said.kind == "say:signal_lost")
        #expect(!PhraseID.guidePhrases.contains(.driverArrived), "the driver's own sentences are not the guide's")
    }

    @Test func theVoiceMatchesTheLanguage() {
        var settings = Settings.standard
        settings.language = "es"
        #expect(settings.speakingVoice.voice == "es")
        settings.voice.voice = "es-419"
        #expect(settings.speakingVoice.voice == "es-419", "a Spanish voice the user chose is kept")
        settings.language = "fr"
        settings.voice.voice = "en+f3"
        #expect(settings.speakingVoice.voice == "fr+f3", "the variant is kept, the language's voice chosen")
        settings.language = "en"
        settings.voice.voice = "en-us"
        #expect(settings.speakingVoice.voice == "en-us")
        #expect(Settings.standard.validationError == nil)
        settings.language = "de"
        #expect(settings.validationError == "language must be one of en, es, fr, not \"de\"")
    }

    @Test func theDriversDeviceSpeaksTheDriversLanguage() {
        var core = DriverCore(identity: ScriptedGuide.identity, autoConfirm: false,
                              meeting: DriverMeeting(passengerName: "Ana", rideWord: "maple river"))
        core.book = Phrasebook(.fr)
        #expect(core.handle(.key(time: 1, .rideWord)) == [.tell("Le mot de la course est : maple river. Dites-le à Ana quand on vous le demande.")])
        // What she is told is said to him once the ride service took his move.
        #expect(core.handle(.key(time: 2, .coming)) == [.meeting(.coming)])
        #expect(core.handle(.posted(.meeting(.coming), time: 2.5, failure: nil)) == [.tell("Ana apprend que vous venez à pied, et attend sur place.")])
        #expect(DriverPhrase.touchDetectedPressEnter.text(in: Phrasebook(.es)) == "Contacto detectado. Pulsa Intro para confirmar el viaje.")
        #expect(LocatorInstruction.horn.words(passenger: "Ana", in: Phrasebook(.es))
                == "Ana está buscando el coche. Da dos toques cortos de claxon; luego pulsa la s antes de 10 segundos, o la n si no puedes.")
        // The key the Spanish sentence names is the one that answers yes (sí).
        #expect(DriverKey(character: "s", in: Phrasebook(.es)) == .done)
        // English stays as it was.
        #expect(LocatorInstruction.voiceWindow.words(passenger: "Ana")
                == "Ana is looking for the car. Call \"Ana\" through the open window, then press y within 10 seconds; n if you can't.")
        for phrase in DriverPhrase.allCases { #expect(phrase.text(in: .english) == phrase.rawValue) }
        var english = DriverCore(identity: ScriptedGuide.identity, autoConfirm: false, meeting: DriverMeeting(passengerName: "Ana"))
        #expect(english.handle(.key(time: 1, .rideWord)) == [.tell("This ride has no ride word.")])
    }
}
