import Foundation
import HTTPTypes
import Hummingbird
import Phrasebook

/// The passenger page's language: the one picked on the page (a cookie), else the browser's
/// `Accept-Language`, else English. The picker's form posts to `/language`.
enum PassengerLanguage {
    static let cookieName = "rb_lang"

    static func language(for request: Request) -> Language {
        if let picked = request.cookies[cookieName].flatMap({ Language(rawValue: $0.value) }) { return picked }
        if let header = request.headers[.acceptLanguage], let preferred = Language.preferred(acceptLanguage: header) { return preferred }
        return .en
    }

    static func book(for request: Request) -> Phrasebook { Phrasebook(language(for: request)) }

    /// A year; not HttpOnly-sensitive (it holds only "es"), but kept like the session cookie.
    static func cookie(_ language: Language, secure: Bool) -> Cookie {
        Cookie(name: cookieName, value: language.rawValue, maxAge: 365 * 86_400, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }
}

/// `POST /language`: the picker's form (`csrf=…&language=es`).
struct LanguageForm: Decodable {
    var csrf: String?
    var language: String?
}
