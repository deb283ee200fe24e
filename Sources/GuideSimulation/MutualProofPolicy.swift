import Guide
import BeaconCore
import RideSession

/// The ride service's mutual touch policy for walks without a server (benchmarks, tests): the
/// ride is confirmed once both sides have proven a touch, the two proofs posted within `window`
/// seconds of each other and their observation windows simultaneous (`TouchWindows`, the
/// server's rule). Identity and slot checks are the server's (`ridebeacon demo` runs the real one).
public final class MutualProofPolicy {
    public let window: Double
    public private(set) var confirmed = false
    /// Every proof posted, in order.
    public private(set) var proofs: [(side: BeaconSide, observation: TouchObservation)] = []

    /// Whether the two proofs' observation windows must meet (false: the rule before issue 12,
    /// for benchmarks' baselines).
    public let simultaneity: Bool

    public init(window: Double = MutualTouchRule.pairingWindow, simultaneity: Bool = true) {
        self.window = window
        self.simultaneity = simultaneity
    }

    public func prove(_ side: BeaconSide, _ observation: TouchObservation) -> ProofAnswer {
        proofs.append((side, observation))
        guard !confirmed else { return .confirmed }
        // A proof's posting time is its observation's end (the walk posts at once).
        let counterpart = proofs.filter { $0.side != side && abs($0.observation.unixTime - observation.unixTime) <= window }
        guard !counterpart.isEmpty else { return .awaitingCounterpart }
        guard !simultaneity || counterpart.contains(where: {
            observation.isSimultaneous(withWindowFrom: $0.observation.firstUnixTime, until: $0.observation.unixTime)
        }) else { return .notSimultaneous }
        confirmed = true
        return .confirmed
    }
}
