import Foundation

/// A language the phrasebook is written in. Every sentence a person hears or reads about a ride
/// comes from the catalogue in one of these (`Phrasebook`).
public enum Language: String, CaseIterable, Sendable, Codable, Comparable {
    case en, es, fr

    public static let standard = Language.en

    /// The codes, for messages ("en, es, fr").
    public static var codes: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// "es", "es-MX", "fr_FR.UTF-8", "EN": the language part, when the phrasebook has it.
    public init?(code: String) {
        let primary = code.trimmingCharacters(in: .whitespaces).lowercased()
            .split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == "." || $0 == "@" }).first.map(String.init) ?? ""
        self.init(rawValue: primary)
    }

    /// The best of the languages an `Accept-Language` header asks for (RFC 9110 §12.5.4:
    /// q-values, the first wins a tie; `*` and q=0 are not a choice); nil when none is written.
    public static func preferred(acceptLanguage header: String) -> Language? {
        var best: (language: Language, q: Double, index: Int)?
        for (index, item) in header.split(separator: ",").enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, let language = Language(code: tag) else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)) ?? 0
            }
            guard q > 0 else { continue }
            if best == nil || q > best!.q { best = (language, q, index) }
        }
        return best?.language
    }

    /// The language's own name, for a picker.
    public var name: String {
        switch self {
        case .en: "English"
        case .es: "Español"
        case .fr: "Français"
        }
    }

    /// The espeak-ng voice that speaks it (`espeak-ng --voices`: gmw/en, roa/es, roa/fr).
    public var espeakVoice: String {
        switch self {
        case .en: "en"
        case .es: "es"
        case .fr: "fr"
        }
    }

    /// Whether the espeak-ng voice `voice` ("en-us", "es-419", "fr+f3") speaks this language.
    public func isSpoken(by voice: String) -> Bool {
        let primary = voice.lowercased().split(whereSeparator: { $0 == "-" || $0 == "+" || $0 == "_" }).first.map(String.init)
        return primary == rawValue
    }

    /// CLDR's plural category of a whole number: English and Spanish say "one" for 1 only,
    /// French for 0 and 1 ("0 minute", "1 minute", "2 minutes").
    public func pluralCategory(_ count: Int) -> PluralCategory {
        switch self {
        case .en, .es: count == 1 ? .one : .other
        case .fr: count == 0 || count == 1 ? .one : .other
        }
    }

    public static func < (lhs: Language, rhs: Language) -> Bool { lhs.rawValue < rhs.rawValue }
}

public enum PluralCategory: String, Sendable, CaseIterable {
    case one, other
}
