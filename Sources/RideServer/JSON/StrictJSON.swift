import Foundation
import Hummingbird

/// A request body decoded strictly: unknown fields, wrong types, empty or over-long strings are
/// all 400s that name the field, so a typo in a client never silently drops data.
protocol StrictBody: Decodable, Sendable {
    /// Every field the body may contain.
    static var fields: Set<String> { get }
    /// Whether an empty request body means "no fields" (bodies whose fields are all optional).
    static var emptyBodyAllowed: Bool { get }
    /// Checks values beyond their JSON types; throws `APIError.invalidField`.
    func validate() throws
}

extension StrictBody {
    static var emptyBodyAllowed: Bool { false }
    func validate() throws {}
}

/// For POSTs that take no input: an empty body or `{}`.
struct EmptyBody: StrictBody {
    static let fields: Set<String> = []
    static var emptyBodyAllowed: Bool { true }
}

extension Request {
    /// Decodes the (already size-limited) body as `T`, strictly.
    func decodeStrict<T: StrictBody>(_ type: T.Type, context: RideContext) async throws -> T {
        var buffer = try await body.collect(upTo: APILimits.maxBodyBytes)
        let data = buffer.readData(length: buffer.readableBytes) ?? Data()
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            guard T.emptyBodyAllowed else { throw APIError.invalidJSON("the request body must be a JSON object") }
            return try StrictJSON.decode(T.self, from: Data("{}".utf8))
        }
        return try StrictJSON.decode(T.self, from: data)
    }
}

enum StrictJSON {
    static func decode<T: StrictBody>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = APIJSON.decoder
        let keys: [String]
        do {
            keys = try decoder.decode(KeyProbe.self, from: data).keys
        } catch DecodingError.typeMismatch {
            throw APIError.invalidJSON("the request body must be a JSON object")
        } catch {
            throw APIError.invalidJSON("the request body is not valid JSON")
        }
        if let unknown = keys.filter({ !T.fields.contains($0) }).sorted().first {
            throw APIError.invalidField(unknown, "unknown field")
        }
        let value: T
        do {
            value = try decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw apiError(for: error)
        }
        try value.validate()
        return value
    }

    static func apiError(for error: DecodingError) -> APIError {
        switch error {
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            return .invalidField(field, "must be \(describe(type))")
        case .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            return .invalidField(field, "must be \(describe(type)), not null")
        case .keyNotFound(let key, let context):
            return .invalidField(path(context.codingPath + [key]), "is required")
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return .invalidField(path(context.codingPath), "has an invalid value")
        case .dataCorrupted:
            return .invalidJSON("the request body is not valid JSON")
        @unknown default:
            return .invalidJSON("the request body could not be decoded")
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type, is UInt16.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "a boolean"
        default: "a value of type \(type)"
        }
    }
}

/// Collects a JSON object's keys (and fails on anything that is not an object).
private struct KeyProbe: Decodable {
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    let keys: [String]

    init(from decoder: any Decoder) throws {
        keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
    }
}

/// Value rules shared by all bodies, stated identically as `pattern`s in openapi.yaml.
enum FieldRules {
    /// Non-blank, at most `maxLength` Unicode code points (what JSON Schema's maxLength counts),
    /// and no control characters (PostgreSQL rejects NUL, and nothing a person types needs the
    /// others) except tab and line breaks in free text.
    static func text(_ value: String, field: String, maxLength: Int, multiline: Bool = false) throws {
        let scalars = value.unicodeScalars
        if !scalars.contains(where: { !blank.contains($0) }) {
            throw APIError.invalidField(field, "must not be empty")
        }
        if scalars.count > maxLength {
            throw APIError.invalidField(field, "must be at most \(maxLength) characters (got \(scalars.count))")
        }
        let allowed: Set<Unicode.Scalar> = multiline ? ["\t", "\n", "\r"] : []
        if scalars.contains(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
            throw APIError.invalidField(field, "must not contain control characters")
        }
    }

    static func optionalText(_ value: String?, field: String, maxLength: Int, multiline: Bool = false) throws {
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
