import Guide
import Phrasebook
@testable import RideBeaconCLI
import Testing

/// Issue 37, point 12: `settings show` printed English labels whatever the device's language.
/// Its lines come from the phrasebook now, in the language the device speaks by
/// `DeviceLanguage`'s rule; English reads exactly as before.
@Suite("settings show in the device's language")
struct SettingsShowWordsTests {
    var unsaved: Settings { .standard }
    var savedFrench: Settings {
        var settings = Settings.standard
        settings.language = "fr"
        return settings
    }

    @Test("English reads as it always did")
    func englishAsBefore() {
        let book = Phrasebook.english
        #expect(SettingsCommand.lines(.standard, in: book).contains("language: en"))
        #expect(SettingsCommand.accountLines(unsaved, account: .unreachable(server: "http://x"), environment: [:], in: book)
                == ["account language: unknown (cannot reach the ride service at http://x)"])
        #expect(SettingsCommand.accountLines(unsaved, account: .language("es"), environment: [:], in: book)
                == ["account language: es", "this device speaks: es (your account's)"])
        #expect(SettingsCommand.accountLines(unsaved, account: nil, environment: [:], in: book).isEmpty, "not signed in: nothing")
    }

    @Test("the account's Spanish decides the book when nothing is saved here, and the lines are Spanish")
    func accountsSpanish() {
        let book = SettingsCommand.book(unsaved, account: .language("es"), environment: ["LANG": "fr_FR.UTF-8"])
        #expect(book.language == .es)
        #expect(SettingsCommand.accountLines(unsaved, account: .language("es"), environment: [:], in: book)
                == ["idioma de la cuenta: es", "este dispositivo habla: es (el de tu cuenta)"])
        let lines = SettingsCommand.lines(unsaved, in: book)
        #expect(lines.contains("idioma: en") && lines.contains("token: sin configurar"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("language") || $0.contains("not set") }, "\(lines)")
    }

    @Test("a saved French wins over the account's, offline too, in French")
    func savedFrenchWins() {
        let book = SettingsCommand.book(savedFrench, account: .language("es"), environment: [:])
        #expect(book.language == .fr)
        #expect(SettingsCommand.book(savedFrench, account: .unreachable(server: "http://x"), environment: [:]).language == .fr)
        #expect(SettingsCommand.accountLines(savedFrench, account: .unreachable(server: "http://x"), environment: [:], in: book)
                == ["langue du compte : inconnue (impossible de joindre le service de courses à l'adresse http://x)"])
        #expect(SettingsCommand.accountLines(savedFrench, account: .language(nil), environment: [:], in: book)
                == ["langue du compte : non choisie", "cet appareil parle : fr (enregistrée sur cet appareil)"])
        #expect(SettingsCommand.lines(savedFrench, in: book).contains("circulation : à droite"))
    }

    @Test("nothing saved and no account language: the system's locale decides, and says so")
    func systemsLocale() {
        let environment = ["LANG": "es_MX.UTF-8"]
        let book = SettingsCommand.book(unsaved, account: .language(nil), environment: environment)
        #expect(book.language == .es)
        #expect(SettingsCommand.accountLines(unsaved, account: .language(nil), environment: environment, in: book).last
                == "este dispositivo habla: es (el idioma del sistema)")
    }
}
