import Phrasebook
import Testing

@Suite struct PhrasebookCatalogueTests {
    @Test("every key is written in every language, with English's placeholders", arguments: Language.allCases)
    func complete(language: Language) {
        for key in PhraseID.allCases {
            guard let english = Phrasebook.entry(key, in: .en) else {
                Issue.record("\(key.rawValue) is missing in en")
                continue
            }
            guard let entry = Phrasebook.entry(key, in: language) else {
                Issue.record("\(key.rawValue) is missing in \(language.rawValue)")
                continue
            }
            #expect(entry.placeholders == english.placeholders,
                    "\(key.rawValue) in \(language.rawValue) has placeholders \(entry.placeholders.sorted()), English \(english.placeholders.sorted())")
            // A plural entry's forms each carry the number; a sentence is not plural in one language only.
            switch (entry, english) {
            case (.plural(let on, let one, let other), .plural(let englishOn, _, _)):
                #expect(on == englishOn)
                #expect(one.contains("{\(on)}") && other.contains("{\(on)}"), "\(key.rawValue) in \(language.rawValue)")
            case (.text, .text): break
            default:
                // Plural in one language, not in another, is allowed only towards plural.
                if case .text = english {} else { Issue.record("\(key.rawValue) in \(language.rawValue) must be plural like English") }
            }
        }
    }

    @Test func placeholderMismatchIsSeen() {
        #expect(PhraseEntry.text("{name} arrived").placeholders != PhraseEntry.text("{nom} est là").placeholders)
        #expect(PhraseEntry.plural(on: "minutes", one: "{minutes} minute", other: "{minutes} minutes").placeholders == ["minutes"])
    }

    @Test func pluralRulesPerLanguage() {
        let en = Phrasebook(.en), es = Phrasebook(.es), fr = Phrasebook(.fr)
        #expect(en(.followThereInMinutes, ["name": "Ben", "minutes": 1]) == "Ben will be there in 1 minute")
        #expect(en(.followThereInMinutes, ["name": "Ben", "minutes": 5]) == "Ben will be there in 5 minutes")
        #expect(es(.followThereInMinutes, ["name": "Ben", "minutes": 1]) == "Ben llegará en 1 minuto")
        #expect(es(.followThereInMinutes, ["name": "Ben", "minutes": 0]) == "Ben llegará en 0 minutos")
        // French: 0 and 1 are singular.
        #expect(fr(.followThereInMinutes, ["name": "Ben", "minutes": 0]) == "Ben sera là dans 0 minute")
        #expect(fr(.followThereInMinutes, ["name": "Ben", "minutes": 2]) == "Ben sera là dans 2 minutes")
        #expect(en(.guideAboutMeters, ["distance": 1]) == "About 1 meter.")
        #expect(en(.guideAboutMeters, ["distance": 8]) == "About 8 meters.")
    }

    @Test func numbersAndCodes() {
        #expect(Phrasebook(.en).number(12345) == "12,345")
        #expect(Phrasebook(.es).number(1234) == "1234")
        #expect(Phrasebook(.fr).number(12345) == "12\u{202F}345")
        #expect(Phrasebook(.fr).decimal(2.5) == "2,5")
        #expect(Phrasebook(.en).decimal(2.5) == "2.5")
        #expect(Phrasebook(.en).spokenCode("KX7R") == "K X 7 R")
        #expect(Phrasebook(.es).spokenCode("KY7R") == "K i griega 7 R")
        #expect(Phrasebook(.fr).spokenCode("KY7R") == "K i grec 7 R")
        #expect(Phrasebook(.es)(.followRideCode, ["code": .code("KX7R")]) == "Viaje K X 7 R.")
    }

    @Test func languageCodes() {
        #expect(Language(code: "es-MX") == .es)
        #expect(Language(code: "fr_FR.UTF-8") == .fr)
        #expect(Language(code: "de") == nil)
        #expect(Language.preferred(acceptLanguage: "de-DE,fr;q=0.8,en;q=0.5") == .fr)
        #expect(Language.preferred(acceptLanguage: "en;q=0.2, es-419;q=0.9") == .es)
        #expect(Language.preferred(acceptLanguage: "es;q=0, fr") == .fr)
        #expect(Language.preferred(acceptLanguage: "de, *") == nil)
        #expect(Language.es.isSpoken(by: "es-419") && !Language.es.isSpoken(by: "en") && Language.fr.isSpoken(by: "fr+f3"))
    }

    @Test func carsInEachLanguage() {
        func car(_ language: Language, spoken: Bool) -> String {
            Phrasebook(language).vehicle(colour: "blue", make: "Toyota", model: "Prius", plate: "AB12 CDE", spoken: spoken)
        }
        // English as RideWire's Vehicle says it.
        #expect(car(.en, spoken: true) == "blue Toyota Prius, plate A B 1 2 C D E")
        #expect(car(.en, spoken: false) == "blue Toyota Prius, plate AB12 CDE")
        #expect(car(.es, spoken: true) == "Toyota Prius azul, matrícula A B 1 2 C D E")
        #expect(car(.fr, spoken: false) == "Toyota Prius bleue, immatriculée AB12 CDE")
        #expect(Phrasebook(.es).vehicle(colour: "YELLOW", make: nil, model: "Yaris", plate: "Y-1", spoken: true) == "Yaris amarillo, matrícula i griega 1")
        #expect(Phrasebook(.fr).vehicle(colour: "teal", make: nil, model: "Clio", plate: nil, spoken: true) == "Clio teal", "an unknown colour as written")
    }
}
