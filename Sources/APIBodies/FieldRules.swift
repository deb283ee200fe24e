/// Value rules shared by all bodies, stated identically as `pattern`s in openapi.yaml.
public enum FieldRules {
    /// Non-blank, at most `maxLength` Unicode code points (what JSON Schema's maxLength counts),
    /// and only characters people write (`isRefused`); tab and line breaks only in free text.
    public static func text(_ value: String, field: String, maxLength: Int, multiline: Bool = false) throws {
        let scalars = value.unicodeScalars
        if !scalars.contains(where: { !blank.contains($0) }) {
            throw BodyError.invalidField(field, "must not be empty")
        }
        if scalars.count > maxLength {
            throw BodyError.invalidField(field, "must be at most \(maxLength) characters (got \(scalars.count))")
        }
        if let refused = scalars.first(where: { isRefused($0, multiline: multiline) }) {
            throw BodyError.invalidField(field, "must not contain control, format, private-use or line-separator characters (found \(codePoint(refused)))")
        }
    }

    public static func optionalText(_ value: String?, field: String, maxLength: Int, multiline: Bool = false) throws {
        if let value { try text(value, field: field, maxLength: maxLength, multiline: multiline) }
    }

    /// The one rule for text people type and other people read or hear (issue 36): refused are
    /// - controls (Cc: PostgreSQL rejects NUL, a terminal obeys escapes), except tab and line
    ///   breaks in multi-line text;
    /// - format characters (Cf): the bidi overrides and isolates (U+202A–202E, U+2066–2069) that
    ///   make a dispatcher read a line reordered, the marks (U+200E/F, U+061C), zero-width space
    ///   and word joiner, the soft hyphen, tag characters (U+E0000–E007F, which carry invisible
    ///   ASCII, also the three subdivision flags' tags), the byte order mark. Kept: ZWNJ U+200C
    ///   and ZWJ U+200D, which Persian, Arabic and Indic scripts need to shape words as written and
    ///   emoji sequences need to join (a person typing "👩‍🦯" sends one);
    /// - private use (Co): no meaning another device shares; surrogates (Cs), never text;
    /// - the line and paragraph separators U+2028/2029 (Zl, Zp), line breaks that the one-line
    ///   checks and the pages' layout do not see.
    /// Everything else (letters of every script, combining marks, variation selectors, emoji) is
    /// allowed. The CLI's speech and terminal sinks use the same rule on what they receive.
    public static func isRefused(_ scalar: Unicode.Scalar, multiline: Bool = false) -> Bool {
        switch scalar.properties.generalCategory {
        case .control: !(multiline && (scalar == "\t" || scalar == "\n" || scalar == "\r"))
        case .format: scalar.value != 0x200C && scalar.value != 0x200D
        case .privateUse, .surrogate, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// "U+202E", for messages (the character itself would be invisible or reorder the message).
    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Characters that do not count as content: controls, and every space and line break that
    /// both ECMAScript and Python regexes agree on (the schema's patterns list them explicitly).
    static let blank: Set<Unicode.Scalar> = {
        var set = Set<Unicode.Scalar>()
        let ranges: [ClosedRange<UInt32>] = [
            0x00...0x20, 0x7F...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029,
            0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
        ]
        for range in ranges { for value in range { if let scalar = Unicode.Scalar(value) { set.insert(scalar) } } }
        return set
    }()
}
