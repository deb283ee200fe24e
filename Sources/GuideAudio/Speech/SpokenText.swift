/// Text another person wrote (a passenger's message, a name, a cancel reason) made fit to be
/// read out: a voice reads whatever it is given, so characters nobody should hear or that hide
/// what a line says become a space, and runs of white space one space. The characters are the
/// server's edge rule for people's text (`FieldRules.isRefused` in APIBodies, which the device's
/// audio does not depend on, so the rule is restated here): controls, format characters except
/// ZWNJ and ZWJ (bidi overrides and isolates, marks, zero-width space, tag characters), private
/// use, surrogates, and the line and paragraph separators. The server refuses them at its edge;
/// rows older than the rule, or another writer's, still arrive.
public enum SpokenText {
    public static func cleaned(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            if isUnspeakable(scalar) || scalar.properties.isWhitespace {
                if !lastWasSpace { out.append(" ") }
                lastWasSpace = true
            } else {
                out.append(scalar)
                lastWasSpace = false
            }
        }
        if out.last == " " { out.removeLast() }
        return String(out)
    }

    /// The characters `cleaned` blanks (see the type's comment).
    public static func isUnspeakable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .privateUse, .surrogate, .lineSeparator, .paragraphSeparator: true
        case .format: scalar.value != 0x200C && scalar.value != 0x200D
        default: false
        }
    }
}
