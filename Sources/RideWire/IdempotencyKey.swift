import Foundation

/// The `Idempotency-Key` header's value: makes a POST safe to repeat, because the server
/// answers a repeat with the first response. Make one per intended write and reuse it for
/// every retry of that write.
/// ```swift
/// let key = IdempotencyKey()               // "rb-<uuid>"
/// let given = IdempotencyKey("retry-42")   // nil unless 1...255 printable ASCII, no spaces
/// ```
public struct IdempotencyKey: Sendable, Hashable, CustomStringConvertible {
    /// The header's text.
    public let rawValue: String

    /// A fresh random key.
    public init() { rawValue = "rb-" + UUID().uuidString.lowercased() }

    /// 1 to 255 printable ASCII characters without spaces (openapi.yaml); nil otherwise.
    public init?(_ text: String) {
        guard (1...255).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        rawValue = text
    }

    /// The key as sent in the `Idempotency-Key` header.
    public var description: String { rawValue }
}
