import Foundation

/// Who one of a ride's people is, for whoever may see the ride: the passenger's guide says
/// "your driver is Ben, blue Toyota Prius"; dispatchers see names, not account ids.
public struct RideParty: Sendable, Equatable, Codable {
    /// The account's display name.
    public var name: String
    /// Drivers only, when their account has one ("blue Toyota Prius").
    public var vehicle: String?
    /// Drivers only: the car's colour, make, model and plate, when known (an account's
    /// free text that could not be split has only `vehicle`).
    public var vehicleDetails: Vehicle?
    /// The passenger only, and only to the ride's driver and passenger: the language her account
    /// chose ("es"), absent when it chose none. Both devices take the ride word's list from it
    /// (`RideWord.phrase(rideKey:language:)`), so the driver's says her words, not his.
    public var language: String?

    /// A party named `name`, with a vehicle for drivers, a language for passengers.
    public init(name: String, vehicle: String? = nil, vehicleDetails: Vehicle? = nil, language: String? = nil) {
        self.name = name
        self.vehicle = vehicle
        self.vehicleDetails = vehicleDetails
        self.language = language
    }
}

/// A ride (openapi.yaml `Ride`), as one caller may see it.
public struct Ride: Sendable, Equatable, Codable {
    /// The ride's id (not the request's).
    public var id: String
    /// The request this ride was accepted from.
    public var requestID: String
    /// The passenger's account id.
    public var passengerID: String
    /// The driver's account id.
    public var driverID: String
    /// The passenger's name.
    public var passenger: RideParty
    /// The driver's name and vehicle.
    public var driver: RideParty
    /// Where the ride is in its lifecycle.
    public var state: RideState
    /// When a driver accepted.
    public var createdAt: Date
    /// When `state` last changed.
    public var stateChangedAt: Date
    /// Base64 of the 32-byte ride key; only in responses to the ride's driver and passenger.
    public var key: String?
    /// The deployment's identity slot period, sent with `key` (servers before touch-proof
    /// verification did not send it).
    public var identityPeriodSeconds: Int?
    /// The ride's short code (its request's), accepted wherever the ride's id is; absent for
    /// rides made before codes existed.
    public var code: String?
    /// Where the passenger waits, for dispatchers and the ride's people (servers before
    /// dispatcher actions did not send it; blank once retention purged it).
    public var pickup: String?
    /// Where the passenger is going (like `pickup`).
    public var dropoff: String?
    /// The passenger's notes for the driver (like `pickup`).
    public var accessibilityNotes: String?
    /// The driver's latest estimate of minutes to the pickup, from `etaGivenAt`.
    public var etaMinutes: Int?
    /// When the driver gave `etaMinutes`.
    public var etaGivenAt: Date?
    /// True for dispatchers when the ride seems stuck: `arrived` more than 5 minutes, or
    /// `accepted` longer than its ETA (or 15 minutes without one).
    public var stuck: Bool?
    /// On cancelled rides: who cancelled, and why.
    public var cancellation: RideCancellation?

    /// A ride with every field given.
    public init(id: String, requestID: String, passengerID: String, driverID: String, passenger: RideParty, driver: RideParty,
                state: RideState, createdAt: Date, stateChangedAt: Date, key: String? = nil, identityPeriodSeconds: Int? = nil,
                code: String? = nil) {
        self.id = id
        self.requestID = requestID
        self.passengerID = passengerID
        self.driverID = driverID
        self.passenger = passenger
        self.driver = driver
        self.state = state
        self.createdAt = createdAt
        self.stateChangedAt = stateChangedAt
        self.key = key
        self.identityPeriodSeconds = identityPeriodSeconds
        self.code = code
    }

    /// The short code when there is one, else the id: what people read and type.
    public var handle: String { code ?? id }

    enum CodingKeys: String, CodingKey {
        case id, requestID = "requestId", passengerID = "passengerId", driverID = "driverId", passenger, driver, state,
             createdAt, stateChangedAt, key, identityPeriodSeconds, code, pickup, dropoff, accessibilityNotes,
             etaMinutes, etaGivenAt, stuck, cancellation
    }
}

/// Where a ride request stands: open until a driver accepts it or the passenger withdraws it.
public enum RideRequestStatus: String, Sendable, Codable, CaseIterable {
    case open, accepted, cancelled
}

/// A passenger's ride request (openapi.yaml `RideRequest`), as one caller may see it.
public struct RideRequest: Sendable, Equatable, Codable {
    /// The request's status (`RideRequestStatus`).
    public typealias Status = RideRequestStatus

    /// The request's id.
    public var id: String
    /// Absent in drivers' and dispatchers' view of open requests: they get what they need to
    /// pick the passenger up, nothing more.
    public var passengerID: String?
    /// The name the driver calls out.
    public var passengerName: String
    /// Where to pick the passenger up.
    public var pickup: String
    /// Where the passenger is going.
    public var dropoff: String
    /// E.g. "guide dog", "please come to the door".
    public var accessibilityNotes: String?
    /// Open, accepted or cancelled.
    public var status: Status
    /// When the passenger asked.
    public var createdAt: Date
    /// The ride, once a driver accepted.
    public var rideID: String?
    /// The request's short code (its ride keeps it), accepted wherever the request's id is;
    /// absent for requests made before codes existed.
    public var code: String?
    /// On cancelled requests: who withdrew it, and why.
    public var cancellation: RideCancellation?

    /// A request with every field given.
    public init(id: String, passengerID: String?, passengerName: String, pickup: String, dropoff: String,
                accessibilityNotes: String?, status: Status, createdAt: Date, rideID: String?, code: String? = nil) {
        self.id = id
        self.passengerID = passengerID
        self.passengerName = passengerName
        self.pickup = pickup
        self.dropoff = dropoff
        self.accessibilityNotes = accessibilityNotes
        self.status = status
        self.createdAt = createdAt
        self.rideID = rideID
        self.code = code
    }

    /// The short code when there is one, else the id: what people read and type.
    public var handle: String { code ?? id }

    enum CodingKeys: String, CodingKey {
        case id, passengerID = "passengerId", passengerName, pickup, dropoff, accessibilityNotes, status, createdAt, rideID = "rideId", code,
             cancellation
    }
}

/// What a passenger asks for (`POST /v1/ride-requests`).
public struct NewRideRequest: Sendable, Equatable, Codable {
    /// The name the driver calls out.
    public var passengerName: String
    /// Where to pick the passenger up.
    public var pickup: String
    /// Where the passenger is going.
    public var dropoff: String
    /// E.g. "guide dog", "please come to the door".
    public var accessibilityNotes: String?

    /// A request for a ride from `pickup` to `dropoff`.
    public init(passengerName: String, pickup: String, dropoff: String, accessibilityNotes: String? = nil) {
        self.passengerName = passengerName
        self.pickup = pickup
        self.dropoff = dropoff
        self.accessibilityNotes = accessibilityNotes
    }
}

/// One page of rides (`GET /v1/rides`); pass `nextAfter` as `after` for the next one.
public struct RideList: Sendable, Equatable, Codable {
    /// The rides on this page.
    public var rides: [Ride]
    /// Null on the last page (always present in the JSON).
    public var nextAfter: String?

    /// A page of `rides`.
    public init(rides: [Ride], nextAfter: String?) {
        self.rides = rides
        self.nextAfter = nextAfter
    }

    /// Writes `nextAfter` as null rather than leaving it out: openapi.yaml requires the key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rides, forKey: .rides)
        try container.encode(nextAfter, forKey: .nextAfter)
    }
}

/// One page of ride requests (`GET /v1/ride-requests`); pass `nextAfter` as `after` for the next one.
public struct RideRequestList: Sendable, Equatable, Codable {
    /// The requests on this page.
    public var rideRequests: [RideRequest]
    /// Null on the last page (always present in the JSON).
    public var nextAfter: String?

    /// A page of `rideRequests`.
    public init(rideRequests: [RideRequest], nextAfter: String?) {
        self.rideRequests = rideRequests
        self.nextAfter = nextAfter
    }

    /// Writes `nextAfter` as null rather than leaving it out: openapi.yaml requires the key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rideRequests, forKey: .rideRequests)
        try container.encode(nextAfter, forKey: .nextAfter)
    }
}
