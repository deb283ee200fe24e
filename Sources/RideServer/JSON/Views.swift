import Foundation
import Hummingbird
import RideStore

// Response bodies. They are separate from the store's models so that what a caller may see
// (no ride key for dispatchers, no passenger id for drivers) is decided in one place.

struct AccountView: ResponseEncodable {
    var id: String
    var role: Role
    var displayName: String
    var vehicle: String?
    var createdAt: Date

    init(_ account: Account) {
        id = account.id
        role = account.role
        displayName = account.displayName
        vehicle = account.vehicle
        createdAt = account.createdAt
    }
}

struct AccountList: ResponseEncodable {
    var accounts: [AccountView]
}

/// The one time a token's secret is shown.
struct IssuedTokenView: ResponseEncodable {
    var token: String
    var tokenId: String
    var accountId: String
    var createdAt: Date
    var expiresAt: Date?
}

struct RevokedTokensView: ResponseEncodable {
    var accountId: String
    var revoked: Int
}

struct RideRequestView: ResponseEncodable {
    var id: String
    /// Omitted in drivers' view: they get what they need to pick the passenger up, nothing more.
    var passengerId: String?
    var passengerName: String
    var pickup: String
    var dropoff: String
    var accessibilityNotes: String?
    var status: RideRequest.Status
    var createdAt: Date
    var rideId: String?

    init(_ request: RideRequest, showPassenger: Bool) {
        id = request.id
        passengerId = showPassenger ? request.passengerID : nil
        passengerName = request.passengerName
        pickup = request.pickup
        dropoff = request.dropoff
        accessibilityNotes = request.accessibilityNotes
        status = request.status
        createdAt = request.createdAt
        rideId = request.rideID
    }
}

struct RideRequestList: ResponseEncodable {
    var rideRequests: [RideRequestView]
    /// Pass as `after` for the next page; null on the last page.
    var nextAfter: String?

    func encode(to encoder: any Encoder) throws {
        enum Keys: String, CodingKey { case rideRequests, nextAfter }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(rideRequests, forKey: .rideRequests)
        try container.encode(nextAfter, forKey: .nextAfter)
    }
}

struct RideView: ResponseEncodable {
    var id: String
    var requestId: String
    var passengerId: String
    var driverId: String
    /// Names, so the passenger's guide can say "your driver is Ben, blue Toyota Prius".
    var passenger: RideParty
    var driver: RideParty
    var state: RideState
    var createdAt: Date
    var stateChangedAt: Date
    /// Base64 of the 32-byte ride key; present only for the ride's driver and passenger.
    var key: String?
    /// The deployment's identity slot period, without which the key cannot derive identities.
    var identityPeriodSeconds: Int?

    init(_ detail: RideDetail, showKey: Bool, identityPeriod: Int) {
        let ride = detail.ride
        id = ride.id
        requestId = ride.requestID
        passengerId = ride.passengerID
        driverId = ride.driverID
        passenger = detail.passenger
        driver = detail.driver
        state = ride.state
        createdAt = ride.createdAt
        stateChangedAt = ride.stateChangedAt
        key = showKey && !ride.key.isEmpty ? ride.key.base64EncodedString() : nil  // empty: erased by retention
        identityPeriodSeconds = showKey ? identityPeriod : nil
    }
}

struct RidePage: ResponseEncodable {
    var rides: [RideView]
    /// Pass as `after` for the next page; null on the last page.
    var nextAfter: String?

    func encode(to encoder: any Encoder) throws {
        enum Keys: String, CodingKey { case rides, nextAfter }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(rides, forKey: .rides)
        try container.encode(nextAfter, forKey: .nextAfter)
    }
}

struct EventView: Encodable {
    var id: Int64
    var requestId: String
    /// Absent for a request's events before a driver accepted it.
    var rideId: String?
    var sequence: Int
    var state: RideState
    var actorId: String
    var at: Date
    var detail: String?

    init(_ event: RideEvent) {
        id = event.id
        requestId = event.requestID
        rideId = event.rideID
        sequence = event.sequence
        state = event.state
        actorId = event.actorID
        at = event.at
        detail = event.detail
    }
}

struct HealthView: ResponseEncodable {
    var status: String
    var database: String
}
