import BeaconCore
import Guide
import RideRules
import RideSession

/// The ride service's mutual touch policy for walks without a server (benchmarks, tests): the
/// server's rule itself, RideRules' `TouchPairing` (issue 38). The ride is confirmed once the two
/// sides' proofs were received within `MutualTouchRule.pairingWindow` of each other and their
/// observation windows are simultaneous. Identity and slot checks are the server's
/// (`ridebeacon demo` runs the real one).
///
/// A proof's receive time is when the walk posted it (`ProofPosting.unixTime`, which
/// `GuidedWalk` sets around each `prove`); outside a walk, its observation's end. Until issue 38
/// this policy paired proofs by their observations' ends, where the server pairs by receive
/// times: a proof posted later than its observation ended (the passenger's after Enter, the
/// driver's re-proof) now pairs as the server would pair it.
public final class MutualProofPolicy {
    public private(set) var confirmed = false
    /// Every proof posted, in order.
    public private(set) var proofs: [(side: BeaconSide, observation: TouchObservation)] = []
    private var kept: [KeptTouchProof] = []

    /// Whether the two proofs' observation windows must meet (false: the rule before issue 12,
    /// for benchmarks' baselines: any counterpart proof received within the window confirms).
    public let simultaneity: Bool

    public init(simultaneity: Bool = true) {
        self.simultaneity = simultaneity
    }

    /// The answer to `side`'s proof of `observation`, received at `receivedAt` (Unix seconds;
    /// nil: `ProofPosting.unixTime`, else the observation's end).
    public func prove(_ side: BeaconSide, _ observation: TouchObservation, receivedAt: Double? = nil) -> ProofAnswer {
        proofs.append((side, observation))
        guard !confirmed else { return .confirmed }
        let new = KeptTouchProof(side: TouchSide(side), slot: Int64(clamping: observation.slot),
                                 receivedAt: receivedAt ?? ProofPosting.unixTime ?? observation.unixTime,
                                 from: observation.firstUnixTime, until: observation.unixTime)
        let outcome = simultaneity ? TouchPairing.outcome(of: new, among: kept)
            : TouchPairing.counterparts(of: new, among: kept).isEmpty ? .awaitingCounterpart : .confirmed
        kept.append(new)
        switch outcome {
        case .awaitingCounterpart: return .awaitingCounterpart
        case .notSimultaneous: return .notSimultaneous
        case .confirmed:
            confirmed = true
            return .confirmed
        }
    }
}

/// When the walk posts a proof: `GuidedWalk` runs each `prove` with `unixTime` set to the
/// walk's clock at that moment, so a policy answering it (`MutualProofPolicy`) knows the
/// receive time without every caller's `prove` closure passing it on.
public enum ProofPosting {
    @TaskLocal public static var unixTime: Double?
}
