import Foundation
import PropertyBased
import RideServer
import Testing

/// A presented bearer token is parsed by bytes (issue 39: every request parses one): the rule is
/// still exactly `rb_` and 43 base64url characters, for any bytes a client sends.
@Suite struct TokenParsingTests {
    /// The rule as written before, on Unicode scalars and Foundation's CharacterSet.
    private func reference(_ text: String) -> Bool {
        guard text.hasPrefix("rb_") else { return false }
        let body = text.dropFirst(3)
        return body.count == 43
            && body.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
    }

    @Test func anyBytesParseAsTheWrittenRuleSays() async {
        // Bodies near the right length, drawn mostly from the token alphabet with some of anything.
        let alphabet = Array("abcxyzABCXYZ0189-_+/=. é\u{0}\u{7f}\u{ff}".unicodeScalars)
        let bodies = Gen.int(in: 0...(alphabet.count - 1)).array(of: 41...45)
        await propertyCheck(count: 3000, input: bodies) { picks in
            let text = "rb_" + String(String.UnicodeScalarView(picks.map { alphabet[$0] }))
            #expect((APITokenSecret(presented: text) != nil) == reference(text), "\(text.debugDescription)")
        }
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...60)) { bytes in
            let text = String(decoding: Array("rb_".utf8) + bytes, as: UTF8.self)
            #expect((APITokenSecret(presented: text) != nil) == reference(text), "\(text.debugDescription)")
        }
    }

    @Test func realTokensParseAndNearMissesDoNot() throws {
        let token = APITokenSecret()
        #expect(APITokenSecret(presented: token.text) == token)
        #expect(APITokenSecret(presented: String(token.text.dropLast())) == nil)
        #expect(APITokenSecret(presented: token.text + "A") == nil)
        #expect(APITokenSecret(presented: "rb_" + String(repeating: "é", count: 43)) == nil)
        #expect(APITokenSecret(presented: "RB_" + token.text.dropFirst(3)) == nil)
    }
}
