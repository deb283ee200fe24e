import Foundation

/// requested → accepted → arrived → confirmed → completed; cancelled from any state before completed.
/// A ride row exists from acceptance on; `requested` is the request's own state.
public enum RideState: String, Codable, Sendable, CaseIterable {
    case requested, accepted, arrived, confirmed, completed, cancelled

    public var isActive: Bool { self != .completed && self != .cancelled }

    public func canMove(to next: RideState) -> Bool {
        switch (self, next) {
        case (.requested, .accepted), (.accepted, .arrived), (.arrived, .confirmed), (.confirmed, .completed):
            true
        case (_, .cancelled):
            isActive
        default:
            false
        }
    }
}

public struct Ride: Codable, Equatable, Sendable {
    public var id: String
    public var requestID: String
    public var passengerID: String
    public var driverID: String
    public var state: RideState
    /// 32 random bytes; the root of the ride's rotating beacon identity. Only the ride's
    /// driver and passenger may ever be shown it.
    public var key: Data
    public var createdAt: Date
    public var stateChangedAt: Date
}

/// Who a ride's people are, for whoever may see the ride: the passenger's guide says "your
/// driver is Ben, blue Toyota Prius"; dispatchers see names, not account ids.
public struct RideParty: Codable, Equatable, Sendable {
    public var name: String
    /// Drivers only.
    public var vehicle: String?

    public init(name: String, vehicle: String? = nil) {
        self.name = name
        self.vehicle = vehicle
    }
}

/// A ride joined with its passenger's and driver's accounts.
public struct RideDetail: Equatable, Sendable {
    public var ride: Ride
    public var passenger: RideParty
    public var driver: RideParty

    public init(ride: Ride, passenger: RideParty, driver: RideParty) {
        self.ride = ride
        self.passenger = passenger
        self.driver = driver
    }
}

public struct RideFilter: Sendable, Equatable {
    public enum Scope: Sendable, Equatable {
        /// Every active ride (dispatchers).
        case active
        /// Rides where the account is passenger or driver, any state.
        case participant(String)
    }

    public var scope: Scope
    public var limit: Int
    /// Keyset paging: rides created after this ride id's position.
    public var after: String?

    public init(scope: Scope, limit: Int = 100, after: String? = nil) {
        self.scope = scope
        self.limit = limit
        self.after = after
    }
}
