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
        guard body.count == Self.encodedLength,
              body.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") })
        else { return nil }
        text = presented
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
