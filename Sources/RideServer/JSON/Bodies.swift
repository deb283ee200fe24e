import Foundation
import RideStore
import RideWire

// The store models the API bodies (APIBodies) become, and the touch proof's body.

extension NewRideRequestBody {
    /// `accountName` when the body names nobody: the name on the account.
    func model(accountName: String) -> NewRideRequest {
        NewRideRequest(passengerName: passengerName ?? accountName, pickup: pickup, dropoff: dropoff, accessibilityNotes: accessibilityNotes)
    }
}

extension NewAccountBody {
    var model: NewAccount? {
        Role(rawValue: role).map { role in
            guard let vehicleModel else { return NewAccount(role: role, displayName: displayName, vehicle: vehicle) }
            return NewAccount(role: role, displayName: displayName,
                              vehicleDetails: Vehicle(colour: vehicleColour, make: vehicleMake, model: vehicleModel, plate: vehiclePlate))
        }
    }
}

public enum TokenExpiry {
    public static let days = IssueTokenBody.days
    /// Every token expires by policy (issue 36, finding 8): one an admin issues for a device or
    /// a service (`admin create-account`/`create-token`, `POST /v1/accounts/{id}/tokens`) lasts
    /// this many days unless a shorter or longer `expiresInDays` is given; a code sign-in's
    /// lasts `--sign-in-token-days`, a page session's `--web-session-hours` after last use.
    public static let adminIssuedDays = 365

    /// Whole milliseconds, like every time the store keeps.
    public static func date(afterDays days: Int, from now: Date = Date()) -> Date {
        Date(timeIntervalSince1970: ((now.timeIntervalSince1970 + Double(days) * 86_400) * 1000).rounded(.down) / 1000)
    }
}

/// The touch proof's body (RideWire), decoded strictly like the bodies in APIBodies.
extension TouchProof: StrictBody {
    public static let fields: Set<String> = ["uuid", "major", "minor", "slot", "peakRssiDbm", "samples", "observedAt",
                                             "observedFrom", "observedUntil"]

    public func validate() throws {
        guard UUID(uuidString: uuid) != nil else { throw APIError.invalidField("uuid", "must be a UUID like 8-4-4-4-12 hex digits") }
        guard Self.componentRange.contains(major) else { throw APIError.invalidField("major", "must be 0...65535") }
        guard Self.componentRange.contains(minor) else { throw APIError.invalidField("minor", "must be 0...65535") }
        guard slot >= 0 else { throw APIError.invalidField("slot", "must not be negative") }
        guard Self.peakRssiRange.contains(peakRssiDbm) else { throw APIError.invalidField("peakRssiDbm", "must be -127...20 dBm") }
        guard Self.samplesRange.contains(samples) else { throw APIError.invalidField("samples", "must be 1...100000") }
        guard let at = APIJSON.parseTimestamp(observedAt) else {
            throw APIError.invalidField("observedAt", "must be an RFC 3339 date-time")
        }
        _ = try observationWindow(at: at)
    }

    /// The observation window `observedFrom...observedUntil` (both given, or neither: then the
    /// instant `observedAt`), checked for what the server can check without a clock.
    func observationWindow(at observedAt: Date) throws -> (from: Date, until: Date) {
        switch (observedFrom, observedUntil) {
        case (nil, nil):
            return (observedAt, observedAt)
        case (nil, _):
            throw APIError.invalidField("observedFrom", "must be given with observedUntil (the observation window)")
        case (_, nil):
            throw APIError.invalidField("observedUntil", "must be given with observedFrom (the observation window)")
        case (let fromText?, let untilText?):
            guard let from = APIJSON.parseTimestamp(fromText) else { throw APIError.invalidField("observedFrom", "must be an RFC 3339 date-time") }
            guard let until = APIJSON.parseTimestamp(untilText) else { throw APIError.invalidField("observedUntil", "must be an RFC 3339 date-time") }
            guard from <= observedAt else { throw APIError.invalidField("observedFrom", "must not be after observedAt") }
            guard observedAt <= until else { throw APIError.invalidField("observedUntil", "must not be before observedAt") }
            let length = until.timeIntervalSince(from)
            guard length <= MutualTouchRule.maximumWindow else {
                throw APIError.invalidField("observedFrom", "the observation window is \(Int(length.rounded(.up))) s long; at most \(Int(MutualTouchRule.maximumWindow)) s")
            }
            return (from, until)
        }
    }
}
