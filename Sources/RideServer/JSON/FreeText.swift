import APIBodies
import Foundation

/// The one rule for free text that people type and other people read (pickup, drop-off, notes,
/// cancel reasons, names): forms go through `clean`, JSON bodies through the same `FieldRules`
/// when they are decoded, so no path (the dispatcher page's cancel reason was one) stores text
/// with control, format (bidi overrides, tags), private-use or line-separator characters
/// (`FieldRules.isRefused`). A browser's CR LF line ends become LF; apart from those (and tab,
/// which the API has always allowed in multi-line text) no control character is accepted, and
/// none at all in one-line text. Each sink escapes again for itself (terminal, speech,
/// notification markup, HTML), because older rows and other writers exist. The admin CLI's
/// names and vehicles go through it too (they reach the same people).
public enum FreeText {
    public static func clean(_ value: String, field: String, maxLength: Int = BodyLimits.maxTextLength, multiline: Bool) throws -> String {
        var text = value
        if multiline {
            text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        try FieldRules.text(text, field: field, maxLength: maxLength, multiline: multiline)
        return text
    }

    /// `FieldRules.isRefused`: whether the rule refuses this character (the CLI's sinks blank
    /// the same characters out of text they receive, from rows older than the rule).
    public static func isRefused(_ scalar: Unicode.Scalar, multiline: Bool = false) -> Bool {
        FieldRules.isRefused(scalar, multiline: multiline)
    }
}
