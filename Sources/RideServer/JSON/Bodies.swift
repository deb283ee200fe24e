import Foundation
import RideRules
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

    /// RideRules' `TouchProofCheck.validate`: every field, and the observation window, without a clock.
    public func validate() throws {
        do { _ = try TouchProofCheck.validate(self) } catch { throw APIError(error) }
    }
}
