/// Value rules shared by all bodies, stated identically as `pattern`s in openapi.yaml.
public enum FieldRules {
    /// Non-blank, at most `maxLength` Unicode code points (what JSON Schema's maxLength counts),
    /// and no control characters (PostgreSQL rejects NUL, and nothing a person types needs the
    /// others) except tab and line breaks in free text.
    public static func text(_ value: String, field: String, maxLength: Int, multiline: Bool = false) throws {
        let scalars = value.unicodeScalars
        if !scalars.contains(where: { !blank.contains($0) }) {
            throw BodyError.invalidField(field, "must not be empty")
        }
        if scalars.count > maxLength {
            throw BodyError.invalidField(field, "must be at most \(maxLength) characters (got \(scalars.count))")
        }
        let allowed: Set<Unicode.Scalar> = multiline ? ["\t", "\n", "\r"] : []
        if scalars.contains(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
            throw BodyError.invalidField(field, "must not contain control characters")
        }
    }

    public static func optionalText(_ value: String?, field: String, maxLength: Int, multiline: Bool = false) throws {
        if let value { try text(value, field: field, maxLength: maxLength, multiline: multiline) }
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
