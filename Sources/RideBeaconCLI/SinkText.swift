import GuideAudio
import RideServer

/// Text from the ride service (names, vehicles, places, cancel reasons) escaped for the place it
/// is shown or said. The server refuses control characters at its edge (`FreeText`), but rows
/// written before that, or by another writer, still arrive, and each sink has its own dangers:
/// a terminal obeys escape sequences (window title, clearing the screen, colours, a fake "YOUR
/// RIDE IS CONFIRMED"), a notification daemon renders `<a href>` and `<img src>` in the body,
/// and a voice reads out whatever it is given. HTML is the server's sink: its templates escape
/// every value (Mustache `{{ }}`, never `{{{ }}}`).
enum SinkText {
    /// For a terminal: every C0 and C1 control, DEL, the bidirectional overrides and isolates
    /// (which make a line read differently from what it says) and the other characters the
    /// server's text rule refuses become U+FFFD, visibly; newline and tab (tab-separated output) stay.
    static func terminal(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n", "\t": out.append(scalar)
            case _ where isDangerous(scalar): out.append("\u{FFFD}")
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// For speech: the device's speech cleanup (`SpokenText`, the same rule), so nothing is
    /// read out as a code or swallowed into a word; runs of white space one space.
    static func speech(_ text: String) -> String {
        SpokenText.cleaned(text)
    }

    /// For a desktop notification's summary (plain text by the specification): one line.
    static func notificationSummary(_ text: String) -> String {
        speech(text)
    }

    /// For a desktop notification's body, which notification daemons read as markup (`<b>`,
    /// `<a href>`, `<img src>`): one line of text with `& < > " '` as entities.
    static func notificationBody(_ text: String) -> String {
        var out = ""
        for character in speech(text) {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// The server's edge rule for people's text (`FieldRules.isRefused`: controls, format
    /// characters but ZWJ and ZWNJ, private use, line and paragraph separators), so what the
    /// server would refuse today is also what the sinks neutralise in older rows.
    static func isDangerous(_ scalar: Unicode.Scalar) -> Bool {
        FreeText.isRefused(scalar)
    }
}
