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
}
