import Crypto
import Foundation

/// A bearer token: `rb_` + base64url of 32 random bytes. Only its SHA-256 is stored, so a
/// leaked database cannot be replayed as credentials.
public struct APITokenSecret: Sendable, Equatable {
    public static let prefix = "rb_"
    /// 32 bytes in unpadded base64url.
    static let encodedLength = 43

    public let text: String

    /// A fresh random token.
    public init() {
        text = Self.prefix + Self.base64URL(RandomBytes.make(32))
    }

    /// Parses a presented token; nil when it cannot be one of ours (checked before any lookup).
    public init?(presented: String) {
        guard presented.hasPrefix(Self.prefix) else { return nil }
        let body = presented.dropFirst(Self.prefix.count)
        // Bytes, not Characters and CharacterSet: this runs on every request (issue 39).
        guard body.utf8.count == Self.encodedLength, body.utf8.allSatisfy(Self.isBase64URLDigit) else { return nil }
        text = presented
    }

    private static func isBase64URLDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// What the store keeps and looks tokens up by.
    public var hash: Data { Data(SHA256.hash(data: Data(text.utf8))) }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

enum RandomBytes {
    /// Bytes from the system CSPRNG (getrandom on Linux), via swift-crypto's key generation.
    static func make(_ count: Int) -> Data {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Data($0) }
    }
}
