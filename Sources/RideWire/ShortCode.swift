/// A ride's short code: four characters a person can read out, hear and type, so nobody copies
/// a UUID ("KX7R" instead of "3f2c…"). Unique among open requests and active rides; a ride keeps
/// its request's code.
///
/// The alphabet leaves out characters that look or sound alike in print and speech
/// (0/O/Q/D, 1/I/L, 2/Z, 5/S, 8/B, G/J, U/V, E/B/C/P/T), so what is heard is what is typed.
/// ```swift
/// ShortCode.normalized(" kx7r ")  // "KX7R"
/// ShortCode.normalized("3f2c4a1e-…")  // nil: a UUID, not a code
/// ```
public enum ShortCode {
    /// The characters a code is made of.
    public static let alphabet: [Character] = Array("AFHKMNRWXY34679")
    /// How many characters a code has.
    public static let length = 4

    /// A random code (the store checks it is free among active ones).
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// The code in its canonical form (upper case, spaces and hyphens dropped), or nil when
    /// `text` is not a code (a full id, a typo with a character outside the alphabet).
    public static func normalized(_ text: String) -> String? {
        let compact = text.uppercased().filter { $0 != " " && $0 != "-" }
        guard compact.count == length, compact.allSatisfy(alphabet.contains) else { return nil }
        return compact
    }

    /// "K X 7 R": spoken one character at a time, so a speech engine does not read it as a word.
    public static func spoken(_ code: String) -> String {
        code.map(String.init).joined(separator: " ")
    }
}
