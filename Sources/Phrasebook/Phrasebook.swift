import Foundation

/// One value for a placeholder: text as written, a whole number (written with the language's
/// digit grouping, and choosing the plural form), a decimal, or a ride code (spelled letter by
/// letter with the language's letter names, so a voice does not read "A" as a word).
public enum PhraseValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByStringInterpolation {
    case text(String)
    case count(Int)
    case decimal(Double, digits: Int)
    case code(String)

    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .count(value) }
}

/// One entry: a sentence, or its forms by plural category of the number placeholder `on`.
public enum PhraseEntry: Sendable, Equatable, ExpressibleByStringLiteral {
    case text(String)
    case plural(on: String, one: String, other: String)

    public init(stringLiteral value: String) { self = .text(value) }

    /// Every form the entry has (one for a sentence).
    public var forms: [String] {
        switch self {
        case .text(let text): [text]
        case .plural(_, let one, let other): [one, other]
        }
    }

    /// The placeholders (`{name}`) its forms use, together.
    public var placeholders: Set<String> {
        var names = Set<String>()
        for form in forms { names.formUnion(Phrasebook.placeholders(in: form)) }
        if case .plural(let on, _, _) = self { names.insert(on) }
        return names
    }
}

/// The sentences of one language: `book(.followStopped)`, `book(.followEtaMinutes, ["name": "Ben", "minutes": 3])`.
/// A key missing from a language falls back to English (the catalogue test forbids it).
public struct Phrasebook: Sendable {
    public let language: Language

    public init(_ language: Language) { self.language = language }

    /// The book for `code` ("es-MX"), English when the phrasebook has no such language.
    public init(code: String) { self.init(Language(code: code) ?? .standard) }

    public static let english = Phrasebook(.en)

    public func callAsFunction(_ key: PhraseID, _ arguments: [String: PhraseValue] = [:]) -> String {
        text(key, arguments)
    }

    public func text(_ key: PhraseID, _ arguments: [String: PhraseValue] = [:]) -> String {
        let entry = Catalogue.entries(language)[key] ?? Catalogue.entries(.en)[key] ?? .text(key.rawValue)
        var form: String
        switch entry {
        case .text(let text): form = text
        case .plural(let on, let one, let other):
            let count: Int
            switch arguments[on] {
            case .count(let n)?: count = n
            case .decimal(let x, _)?: count = x == x.rounded() ? Int(x) : 2
            default: count = 2
            }
            form = language.pluralCategory(count) == .one ? one : other
        }
        for (name, value) in arguments {
            form = form.replacingOccurrences(of: "{\(name)}", with: format(value))
        }
        return form
    }

    /// A value as this language writes it.
    public func format(_ value: PhraseValue) -> String {
        switch value {
        case .text(let text): text
        case .count(let n): number(n)
        case .decimal(let x, let digits): decimal(x, digits: digits)
        case .code(let code): spokenCode(code)
        }
    }

    /// A whole number: "1,234" in English, "1234"/"12 345" in Spanish (RAE: no separator below
    /// 10 000, then a space), "1 234" in French (a narrow no-break space).
    public func number(_ n: Int) -> String {
        let digits = String(n.magnitude)
        let sign = n < 0 ? "-" : ""
        let separator: String
        switch language {
        case .en: separator = ","
        case .es: if n.magnitude < 10_000 { return sign + digits }; separator = "\u{202F}"
        case .fr: separator = "\u{202F}"
        }
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return sign + groups.joined(separator: separator)
    }

    /// A decimal with `digits` places: "2.5" in English, "2,5" in Spanish and French.
    public func decimal(_ x: Double, digits: Int = 1) -> String {
        let text = String(format: "%.\(max(0, digits))f", x)
        return language == .en ? text : text.replacingOccurrences(of: ".", with: ",")
    }

    /// A ride code one character at a time ("K X 7 R"), with the language's name for a letter
    /// its voice would read as a word (Spanish and French "Y" is the word "y", said "i").
    public func spokenCode(_ code: String) -> String {
        code.map { character in Catalogue.letterNames(language)[character] ?? String(character) }.joined(separator: " ")
    }

    /// `{name}` placeholders in `text`.
    public static func placeholders(in text: String) -> Set<String> {
        var names = Set<String>()
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            names.insert(String(after[..<close]))
            rest = after[after.index(after: close)...]
        }
        return names
    }
}

enum Catalogue {
    static func entries(_ language: Language) -> [PhraseID: PhraseEntry] {
        switch language {
        case .en: merged.en
        case .es: merged.es
        case .fr: merged.fr
        }
    }

    /// Each language's catalogue with its command-line part (`Catalogue+CommandLine+…`), once.
    private static let merged = (en: english.merging(englishCommandLine) { first, _ in first },
                                 es: spanish.merging(spanishCommandLine) { first, _ in first },
                                 fr: french.merging(frenchCommandLine) { first, _ in first })

    static func letterNames(_ language: Language) -> [Character: String] {
        switch language {
        case .en: [:]
        case .es: ["Y": "i griega"]
        case .fr: ["Y": "i grec"]
        }
    }
}

extension Phrasebook {
    /// The catalogue's entry for `key` in `language` (for the completeness test).
    public static func entry(_ key: PhraseID, in language: Language) -> PhraseEntry? {
        Catalogue.entries(language)[key]
    }
}
