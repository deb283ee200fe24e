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
    /// Four speakable characters, unique among open requests and active rides (`ShortCode`);
    /// nil for requests made before codes existed.
    public var shortCode: String? = nil
}

/// Whether a write enforces "one ride at a time": a passenger holds at most one open request
/// or active ride, a driver at most one ride that occupies him (accepted, arrived or confirmed:
/// `RideState.occupiesDriver`). The API always does; operator
/// tools and load-test seeding that build many rides for one account do not.
public enum BookingRule: Sendable, Equatable {
    case oneRideAtATime
    case unrestricted
}
