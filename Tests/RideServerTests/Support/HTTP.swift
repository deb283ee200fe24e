import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import RideBeaconTesting

extension TestClientProtocol {
    /// One API call as `member` (nil: no Authorization header).
    func call(_ method: HTTPRequest.Method, _ uri: String, as member: Member?, json: String? = nil,
              headers extra: [String: String] = [:]) async throws -> TestResponse {
        var headers = HTTPFields()
        if let member { headers[.authorization] = "Bearer \(member.token)" }
        if json != nil { headers[.contentType] = "application/json" }
        for (name, value) in extra {
            if let name = HTTPField.Name(name) { headers[name] = value }
        }
        return try await executeRequest(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
    var error: [String: Any] { json["error"] as? [String: Any] ?? [:] }
    var errorCode: String? { error["code"] as? String }
    var errorField: String? { error["field"] as? String }
    var errorMessage: String { error["message"] as? String ?? "" }
    var errorState: String? { error["state"] as? String }
    var id: String { json["id"] as? String ?? "" }
    func string(_ key: String) -> String? { json[key] as? String }
}

/// JSON bodies the tests send most.
enum Bodies {
    static let rideRequest = #"{"passengerName":"Ana","pickup":"Main St 1","dropoff":"Station","accessibilityNotes":"guide dog"}"#
}
