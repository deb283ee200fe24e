import Foundation

/// A ride request as stored; the API's `RideRequest` (RideWire) is made from it, without the
/// passenger's id for drivers.
public struct RideRequestRecord: Codable, Equatable, Sendable {
    public typealias Status = RideRequestStatus

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
