import BeaconCore
import Foundation

/// Why the ride service did not take (or give) a position (issue 35), as `PositionSharing`
/// reacts to it: wait, stop for good, or try again with the next fix.
public enum PositionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// Faster than the service takes positions (429); try again after this long, s.
    case tooSoon(retryAfter: Double)
    /// The ride does not take positions in its state (409: not accepted or arrived; its
    /// positions are deleted once it is confirmed, cancelled or completed). It will not again.
    case rideOver(String)
    /// Refused for good: not this account's ride, no such ride, or a service that keeps no
    /// positions.
    case refused(String)
    /// This time only: unreachable, failing, or this fix was refused (400).
    case failed(String)

    public var description: String {
        switch self {
        case .tooSoon(let seconds): "too soon; again after \(seconds) s"
        case .rideOver(let reason), .refused(let reason), .failed(let reason): reason
        }
    }
}

extension RideService {
    /// A service that keeps no positions (the simulator's own, older fakes): refused for good,
    /// so the sharing stops at the first try and the ride goes on without positions.
    public func reportPosition(rideID: String, _ fix: GeoFix) async -> PositionRefusal? {
        .refused("this ride service keeps no positions")
    }

    public func otherPartyPosition(rideID: String) async -> Result<GeoFix?, PositionRefusal> {
        .failure(.refused("this ride service keeps no positions"))
    }
}
