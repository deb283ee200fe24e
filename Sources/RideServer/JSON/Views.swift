import Foundation
import Hummingbird
import RideStore
import RideWire

// Response bodies are the wire types (RideWire). What a caller may see (no ride key for
// dispatchers, no passenger id for drivers) is decided here, where records become them.

extension Account: ResponseGenerator, ResponseEncodable {}
extension AccountList: ResponseGenerator, ResponseEncodable {}
extension IssuedToken: ResponseGenerator, ResponseEncodable {}
extension RevokedTokens: ResponseGenerator, ResponseEncodable {}
extension RideRequest: WireJSONResponse {}
extension RideRequestList: WireJSONResponse {}
extension Ride: WireJSONResponse {}
extension RideList: WireJSONResponse {}

/// The hot bodies write themselves (`WireJSONWriter`): the same bytes as the API's
/// `JSONEncoder`, at a fraction of its cost.
public protocol WireJSONResponse: ResponseGenerator, WireJSONEncodable {}

extension WireJSONResponse {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = wireJSON
        var headers = HTTPFields()
        headers.reserveCapacity(4)
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(body.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
extension TouchProofResult: ResponseGenerator, ResponseEncodable {}
extension LocatorRequest: ResponseGenerator, ResponseEncodable {}

extension RideRequest {
    /// Drivers and dispatchers get what they need to pick the passenger up, nothing more.
    init(_ request: RideRequestRecord, showPassenger: Bool) {
        self.init(id: request.id, passengerID: showPassenger ? request.passengerID : nil, passengerName: request.passengerName,
                  pickup: request.pickup, dropoff: request.dropoff, accessibilityNotes: request.accessibilityNotes,
                  status: request.status, createdAt: request.createdAt, rideID: request.rideID, code: request.shortCode)
    }
}

extension Ride {
    /// The key (base64) and the identity period only when `showKey`: the ride's own people.
    init(_ detail: RideDetail, showKey: Bool, identityPeriod: Int) {
        let ride = detail.ride
        self.init(id: ride.id, requestID: ride.requestID, passengerID: ride.passengerID, driverID: ride.driverID,
                  passenger: detail.passenger, driver: detail.driver, state: ride.state, createdAt: ride.createdAt,
                  stateChangedAt: ride.stateChangedAt, key: showKey && !ride.key.isEmpty ? ride.key.base64EncodedString() : nil,
                  identityPeriodSeconds: showKey ? identityPeriod : nil, code: ride.shortCode)
        // Her language is for the ride word, which only the ride's own people say.
        if !showKey { passenger.language = nil }
        pickup = detail.pickup
        dropoff = detail.dropoff
        accessibilityNotes = detail.accessibilityNotes
        etaMinutes = ride.etaMinutes
        etaGivenAt = ride.etaGivenAt
    }
}

struct HealthView: ResponseEncodable {
    var status: String
    var database: String
}
