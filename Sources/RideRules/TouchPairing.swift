import Foundation
import RideWire

/// One accepted touch proof as the pairing and resend rules see it: whose, which slot, when the
/// service received it, and its observation window (seconds on one clock, e.g. Unix time).
public struct KeptTouchProof: Equatable, Sendable {
    public var side: TouchSide
    public var slot: Int64
    public var receivedAt: Double
    public var from: Double
    public var until: Double

    public init(side: TouchSide, slot: Int64, receivedAt: Double, from: Double, until: Double) {
        self.side = side
        self.slot = slot
        self.receivedAt = receivedAt
        self.from = from
        self.until = until
    }
}

/// The mutual touch policy's pairing and the resend rule, once (issue 38). The server's stores
/// run them as SQL (`SQLiteStore+TouchProofs`, `rb_touch_proof_7`) with the bounds computed
/// here, and RideStoreTests checks that SQL against `outcome` and `isResend` on random proofs;
/// the in-memory double and the simulator call them directly.
///
/// Pairing is by the service's receive times (`receivedAt`), not by when the touch was
/// observed: the two proofs must arrive within `MutualTouchRule.pairingWindow` of each other,
/// and their observation windows must meet (`simultaneous`).
///
/// ```swift
/// let passenger = KeptTouchProof(side: .passenger, slot: 7, receivedAt: 100, from: 98, until: 99)
/// let driver = KeptTouchProof(side: .driver, slot: 7, receivedAt: 104, from: 97, until: 99.5)
/// TouchPairing.outcome(of: driver, among: [passenger])   // .confirmed
/// ```
public enum TouchPairing {
    /// What a new proof does under the mutual policy.
    public enum Outcome: Equatable, Sendable {
        /// No proof of the other side was received within the pairing window.
        case awaitingCounterpart
        /// The other side's proof is in, but no window of theirs meets this one's.
        case notSimultaneous
        /// A proof of the other side received within the window is the same touch: the ride is confirmed.
        case confirmed
    }

    /// Whether the windows `from1...until1` and `from2...until2` (seconds) are one touch: they
    /// overlap, or miss each other by at most `MutualTouchRule.tolerance`.
    public static func simultaneous(_ from1: Double, _ until1: Double, _ from2: Double, _ until2: Double) -> Bool {
        from1 <= until2 + MutualTouchRule.tolerance && from2 <= until1 + MutualTouchRule.tolerance
    }

    /// Whether two receive times are within the pairing window of each other.
    public static func receivedTogether(_ first: Double, _ second: Double) -> Bool {
        abs(first - second) <= MutualTouchRule.pairingWindow
    }

    /// The proofs of `kept` that `new` may pair with: the other side's, received within the
    /// pairing window.
    public static func counterparts(of new: KeptTouchProof, among kept: [KeptTouchProof]) -> [KeptTouchProof] {
        kept.filter { $0.side == new.side.counterpart && receivedTogether($0.receivedAt, new.receivedAt) }
    }

    /// The mutual policy's answer to `new`, given the ride's earlier proofs `kept`.
    public static func outcome(of new: KeptTouchProof, among kept: [KeptTouchProof]) -> Outcome {
        let counterparts = counterparts(of: new, among: kept)
        if counterparts.contains(where: { simultaneous(new.from, new.until, $0.from, $0.until) }) { return .confirmed }
        return counterparts.isEmpty ? .awaitingCounterpart : .notSimultaneous
    }

    /// `counterparts` as SQL bounds: the other side's proofs received in `earliest...latest`.
    public static func receiptBounds(around receivedAt: Date) -> (earliest: Date, latest: Date) {
        (receivedAt.addingTimeInterval(-MutualTouchRule.pairingWindow), receivedAt.addingTimeInterval(MutualTouchRule.pairingWindow))
    }

    /// `simultaneous` as SQL bounds on a kept proof's window: `from <= fromAtMost` and
    /// `until >= untilAtLeast`.
    public static func windowBounds(from: Date, until: Date) -> (fromAtMost: Date, untilAtLeast: Date) {
        (until.addingTimeInterval(MutualTouchRule.tolerance), from.addingTimeInterval(-MutualTouchRule.tolerance))
    }

    // MARK: The resend rule

    /// Whether `new` is a resend: an accepted proof of the same side and slot whose observation
    /// ends within `TouchProof.resentTolerance` before `new`'s (or later). Re-proving an ongoing
    /// touch must extend the window by more; a copy with its time moved by a millisecond adds
    /// nothing (`replayed_proof`).
    public static func isResend(_ new: KeptTouchProof, of kept: [KeptTouchProof]) -> Bool {
        kept.contains { $0.side == new.side && $0.slot == new.slot && $0.until >= new.until - TouchProof.resentTolerance }
    }

    /// `isResend` as an SQL bound: a kept proof of the same side and slot whose window ends at
    /// or after this instant makes the proof ending `until` a resend.
    public static func resentSince(until: Date) -> Date { until.addingTimeInterval(-TouchProof.resentTolerance) }
}
