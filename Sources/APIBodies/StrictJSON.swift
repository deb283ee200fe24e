import Foundation

// The API's request bodies and their strict decoding, with nothing but Foundation: the server
// maps `BodyError` to its HTTP errors, and the libFuzzer target (Sources/FuzzAPIBodies) builds
// this module alone with the sanitizers.

/// Why a body was refused; the server answers 400 with `invalid_json` or `invalid_field`.
public enum BodyError: Error, Equatable, Sendable {
    case invalidJSON(String)
    /// The field's dotted path, and what is wrong with it.
    case invalidField(String, String)
}

/// A request body decoded strictly: unknown fields, wrong types, empty or over-long strings are
/// all errors that name the field, so a typo in a client never silently drops data.
public protocol StrictBody: Decodable, Sendable {
    /// Every field the body may contain.
    static var fields: Set<String> { get }
    /// Whether an empty request body means "no fields" (bodies whose fields are all optional).
    static var emptyBodyAllowed: Bool { get }
    /// Checks values beyond their JSON types; throws `BodyError.invalidField`.
    func validate() throws
}

extension StrictBody {
    public static var emptyBodyAllowed: Bool { false }
    public func validate() throws {}
}

/// Body size and text limits, stated identically in openapi.yaml.
public enum BodyLimits {
    public static let maxBodyBytes = 64 * 1024
    public static let maxNameLength = 200
    public static let maxTextLength = 500
    /// Keys in any one JSON object: the largest body has ten fields, so only a body built to
    /// make the server work is refused (issue 36 sent 8 687).
    public static let maxKeysPerObject = 100
}

public enum StrictJSON {
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// Decodes a whole request body: all-whitespace counts as empty (`{}` where allowed).
    public static func decodeBody<T: StrictBody>(_ type: T.Type, from data: Data) throws -> T {
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            guard T.emptyBodyAllowed else { throw BodyError.invalidJSON("the request body must be a JSON object") }
            return try decode(T.self, from: Data("{}".utf8))
        }
        return try decode(T.self, from: data)
    }

    public static func decode<T: StrictBody>(_ type: T.Type, from data: Data) throws -> T {
        let keys: [String]
        do {
            keys = try decoder.decode(KeyProbe.self, from: data).keys
        } catch DecodingError.typeMismatch {
            throw BodyError.invalidJSON("the request body must be a JSON object")
        } catch {
            throw BodyError.invalidJSON("the request body is not valid JSON")
        }
        switch DuplicateKeys.scan(data) {
        case .duplicate(let key)?:
            throw BodyError.invalidJSON("the request body repeats the key \"\(key.prefix(100))\"")
        case .tooManyKeys(let limit)?:
            throw BodyError.invalidJSON("an object in the request body has more than \(limit) keys")
        case nil:
            break
        }
        if let unknown = keys.filter({ !T.fields.contains($0) }).sorted().first {
            throw BodyError.invalidField(unknown, "unknown field")
        }
        let value: T
        do {
            value = try decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw bodyError(for: error)
        }
        try value.validate()
        return value
    }

    static func bodyError(for error: DecodingError) -> BodyError {
        switch error {
        case .typeMismatch(let type, let context):
            return .invalidField(path(context.codingPath), "must be \(describe(type))")
        case .valueNotFound(let type, let context):
            return .invalidField(path(context.codingPath), "must be \(describe(type)), not null")
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
