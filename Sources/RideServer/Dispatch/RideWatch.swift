import Foundation
import RideStore

/// When a ride needs a dispatcher's eye: a driver standing at the kerb for minutes without the
/// touch confirming, or a driver who has not arrived long after saying when they would.
enum RideWatch {
    /// Past this at the pickup the passenger has probably not found the car.
    static let arrivedLimit: TimeInterval = 5 * 60
    /// An accepted ride with no ETA counts as late after this.
    static let acceptedWithoutETALimit: TimeInterval = 15 * 60
    /// A driver counts as late this long after the time his ETA promised (assumed: the same
    /// five minutes a passenger is given at the pickup). Without it "ETA 0 minutes", which a
    /// driver says when he is turning into the street, was flagged stuck at once (issue 37).
    static let pastETAGrace: TimeInterval = 5 * 60

    static func isStuck(_ ride: RideRecord, now: Date) -> Bool {
        switch ride.state {
        case .arrived:
            return now.timeIntervalSince(ride.stateChangedAt) > arrivedLimit
        case .accepted:
            if let minutes = ride.etaMinutes, let given = ride.etaGivenAt {
                return now > given.addingTimeInterval(TimeInterval(minutes) * 60 + pastETAGrace)
            }
            return now.timeIntervalSince(ride.stateChangedAt) > acceptedWithoutETALimit
        default:
            return false
        }
    }
}
