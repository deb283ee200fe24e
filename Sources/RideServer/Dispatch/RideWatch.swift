import Foundation
import RideStore

/// When a ride needs a dispatcher's eye: a driver standing at the kerb for minutes without the
/// touch confirming, or a driver who has not arrived long after saying when they would.
enum RideWatch {
    /// Past this at the pickup the passenger has probably not found the car.
    static let arrivedLimit: TimeInterval = 5 * 60
    /// An accepted ride with no ETA counts as late after this.
    static let acceptedWithoutETALimit: TimeInterval = 15 * 60

    static func isStuck(_ ride: RideRecord, now: Date) -> Bool {
        switch ride.state {
        case .arrived:
            return now.timeIntervalSince(ride.stateChangedAt) > arrivedLimit
        case .accepted:
            if let minutes = ride.etaMinutes, let given = ride.etaGivenAt {
                return now > given.addingTimeInterval(TimeInterval(minutes) * 60)
            }
            return now.timeIntervalSince(ride.stateChangedAt) > acceptedWithoutETALimit
        default:
            return false
        }
    }
}
