import Foundation
import RideServer
import RideStore
import Testing

/// APIBodies knows nothing of the store (so the fuzzer can build it alone); these keep the
/// copies it holds equal to the store's.
@Suite("API bodies beside the store")
struct APIBodiesTests {
    @Test func accountRolesAreTheStoresRoles() {
        #expect(NewAccountBody.roles == Role.allCases.map(\.rawValue))
    }

    @Test func aBodyErrorIsA400NamingTheField() throws {
        let data = Data(#"{"passengerName":"Ana","pickup":" ","dropoff":"b"}"#.utf8)
        #expect(throws: BodyError.invalidField("pickup", "must not be empty")) {
            try StrictJSON.decodeBody(NewRideRequestBody.self, from: data)
        }
        #expect(throws: BodyError.invalidJSON("the request body must be a JSON object")) {
            try StrictJSON.decodeBody(NewRideRequestBody.self, from: Data(" \n".utf8))
        }
        #expect(try StrictJSON.decodeBody(CancelBody.self, from: Data()).reason == nil)
    }

    /// The decoder would keep one of the values silently (issue 13, item 7).
    @Test(arguments: [
        #"{"passengerName":"A","passengerName":"B","pickup":"a","dropoff":"b"}"#,
        #"{"pickup":"A","passengerName":"A","\u0070ickup":"B","dropoff":"b"}"#,
        #"{"passengerName":"A","pickup":"a","dropoff":"b","\u00e9":1,"e\u0301":2}"#,
    ])
    func duplicateKeysAreInvalidJSON(body: String) {
        #expect(throws: BodyError.self) { try StrictJSON.decodeBody(NewRideRequestBody.self, from: Data(body.utf8)) }
        do {
            _ = try StrictJSON.decodeBody(NewRideRequestBody.self, from: Data(body.utf8))
        } catch let error as BodyError {
            guard case .invalidJSON(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("repeats the key"))
        } catch { Issue.record("\(error)") }
    }

    @Test func sameKeyInSiblingObjectsOrStringsIsNoDuplicate() {
        #expect(DuplicateKeys.first(in: Data(#"[{"k":1},{"k":2}]"#.utf8)) == nil)
        #expect(DuplicateKeys.first(in: Data(#"{"a":"a","b":"a","c":{"a":1}}"#.utf8)) == nil)
        #expect(DuplicateKeys.first(in: Data(#"{"a":{"x":1,"y":[1,{"x":2}]},"b":{"x":3}}"#.utf8)) == nil)
        #expect(DuplicateKeys.first(in: Data(#"{"a":1,"b":{"c":1,"c":2}}"#.utf8)) == "c")
        #expect(DuplicateKeys.first(in: Data(#"{"\ud83d\ude00":1,"😀":2}"#.utf8)) == "😀")
    }

    /// Every seed of the fuzz corpus decodes to a value or a BodyError, and no accepted one repeats a key.
    @Test func fuzzSeedsWithDuplicateKeysAreRefused() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/fuzz/api")
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.contains("duplicate") }
        #expect(names.count >= 7)
        for name in names {
            let bytes = try Data(contentsOf: corpus.appendingPathComponent(name))
            #expect(DuplicateKeys.first(in: bytes.dropFirst()) != nil, "\(name)")
        }
    }
}
