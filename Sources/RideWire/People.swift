import Foundation

/// A driver as dispatchers see them (`GET /v1/drivers`): who, which car, and whether a waiting
/// request can be given to them now.
public struct DriverInfo: Sendable, Equatable, Codable {
    /// The driver's account id (`POST /v1/ride-requests/{id}/assign` takes it).
    public var id: String
    /// The name the dispatcher and the passenger use.
    public var name: String
    /// The car as written ("blue Toyota Prius, plate AB12CDE"); nil when none is recorded.
    public var vehicle: String?
    /// True without an accepted or arrived ride: a request can be assigned to them.
    public var free: Bool
    /// The short code of the ride they have while not free.
    public var rideCode: String?

    /// A driver with every field given.
    public init(id: String, name: String, vehicle: String?, free: Bool, rideCode: String?) {
        self.id = id
        self.name = name
        self.vehicle = vehicle
        self.free = free
        self.rideCode = rideCode
    }
}

/// Every driver, by name (`GET /v1/drivers`; `?free=true` for only the free ones).
public struct DriverList: Sendable, Equatable, Codable {
    /// By name, then id.
    public var drivers: [DriverInfo]

    /// The list as the server sends it.
    public init(drivers: [DriverInfo]) { self.drivers = drivers }
}
