import Guide
import Phrasebook

/// This device's language for the lines a command prints about a ride: the saved setting
/// (`settings set --language`), English when the settings file cannot be read.
enum PersonalBook {
    static var current: Phrasebook { Phrasebook((try? loadSettings())?.phraseLanguage ?? .en) }
}
