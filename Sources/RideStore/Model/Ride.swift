import Foundation
import RideRules

/// What a ride's history takes of the events its people post that the store writes by itself
/// (issue 36; the notes' limits come with each `RideNote`).
public enum RideHistoryLimits {
    /// The driver's ETA updates per ride (`setETA`); the next throws `etaRefusal`.
    public static let etaUpdatesPerRide = RideLimits.etaUpdatesPerRide
    /// `limitReached` with its reason.
    public static var etaRefusal: StoreError {
        .limitReached("this ride already has \(etaUpdatesPerRide) ETA updates; it takes no more")
    }
    /// Locator requests per ride (RideRules' `RideLimits`). PostgreSQL's trigger
    /// (`RideHistoryCaps`) has this number in its migration: changing it needs a new one.
    public static let locatorRequestsPerRide = RideLimits.locatorRequestsPerRide
    public static var locatorRefusal: StoreError {
        .limitReached("this ride already has \(locatorRequestsPerRide) locator requests; it takes no more")
    }
    /// Touch proofs per ride, both sides together (each `touch_observed` event is one;
    /// `RideLimits`). Same migration note.
    public static let touchProofsPerRide = RideLimits.touchProofsPerRide
    public static var touchProofRefusal: StoreError {
        .limitReached("this ride already has \(touchProofsPerRide) touch proofs; it takes no more")
    }
}

/// A ride as stored: the key as bytes, the people as account ids. The API's `Ride` (RideWire)
/// is made from it with the people's names, and the key only for the ride's own people.
public struct RideRecord: Codable, Equatable, Sendable {
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
    /// The request's short code, copied at acceptance.
    public var shortCode: String? = nil
    /// The driver's latest estimate of minutes to the pickup, and when it was given.
    public var etaMinutes: Int? = nil
    public var etaGivenAt: Date? = nil
}

/// A ride joined with its passenger's and driver's accounts.
public struct RideDetail: Equatable, Sendable {
    public var ride: RideRecord
    public var passenger: RideParty
    public var driver: RideParty
    /// The request's places and notes (blank once retention purged them).
    public var pickup: String?
    public var dropoff: String?
    public var accessibilityNotes: String?

    public init(ride: RideRecord, passenger: RideParty, driver: RideParty,
                pickup: String? = nil, dropoff: String? = nil, accessibilityNotes: String? = nil) {
        self.ride = ride
        self.passenger = passenger
        self.driver = driver
        self.pickup = pickup
        self.dropoff = dropoff
        self.accessibilityNotes = accessibilityNotes
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
