import Foundation

public struct RideRequest: Codable, Equatable, Sendable {
    public enum Status: String, Codable, Sendable {
        case open, accepted, cancelled
    }

    public var id: String
    public var passengerID: String
    /// The name the passenger wants the driver to call out.
    public var passengerName: String
    public var pickup: String
    public var dropoff: String
    public var accessibilityNotes: String?
    public var status: Status
    public var createdAt: Date
    /// Set once a driver accepts.
    public var rideID: String?
}

public struct NewRideRequest: Sendable {
    public var passengerName: String
    public var pickup: String
    public var dropoff: String
    public var accessibilityNotes: String?

    public init(passengerName: String, pickup: String, dropoff: String, accessibilityNotes: String? = nil) {
        self.passengerName = passengerName
        self.pickup = pickup
        self.dropoff = dropoff
        self.accessibilityNotes = accessibilityNotes
    }
}
