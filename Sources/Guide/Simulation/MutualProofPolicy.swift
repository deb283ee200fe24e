import BeaconCore
import RideSession

/// The ride service's mutual touch policy for walks without a server (benchmarks, tests): the
/// ride is confirmed once both sides have proven a touch observed within `window` seconds of
/// each other. Identity and slot checks are the server's (`ridebeacon demo` runs the real one).
public final class MutualProofPolicy {
    public let window: Double
    private var latest: [BeaconSide: Double] = [:]
    public private(set) var confirmed = false
    /// Every proof posted, in order.
    public private(set) var proofs: [(side: BeaconSide, observation: TouchObservation)] = []

    public init(window: Double = 10) { self.window = window }

    public func prove(_ side: BeaconSide, _ observation: TouchObservation) -> ProofAnswer {
        proofs.append((side, observation))
        guard !confirmed else { return .confirmed }
        latest[side] = observation.unixTime
        if let passenger = latest[.passenger], let driver = latest[.driver], abs(passenger - driver) <= window {
            confirmed = true
            return .confirmed
        }
        return .awaitingCounterpart
    }
}
