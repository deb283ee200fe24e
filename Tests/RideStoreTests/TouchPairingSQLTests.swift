import Foundation
import PropertyBased
import RideBeaconTesting
import RideRules
import Testing
@testable import RideStore

/// Issue 38: the stores' touch-proof SQL (SQLite's `counterpartProofs` and resend check,
/// PostgreSQL's `rb_touch_proof_7`) against RideRules' `TouchPairing`, on random sequences of
/// proofs: each proof is refused as a resend exactly when `isResend` says, confirms exactly when
/// `outcome` says, reports `notSimultaneous` exactly when it says, and once the ride is confirmed
/// every later proof is refused for its state.
///
/// Times are on a half-second grid: exact in binary, in milliseconds (SQLite) and microseconds
/// (PostgreSQL), and coarse enough that the rule's boundaries (received 10 s apart, windows 1 s
/// apart, a resend 1 s further) are hit exactly and often (a finer grid missed an `<` for `<=`
/// in SQLite's simultaneity check).
@Suite("Store contract: touch-proof SQL against RideRules")
struct TouchPairingSQLTests {
    struct Step: Sendable, CustomStringConvertible {
        var side: TouchSide
        var slot: Int64
        /// Half seconds since the previous proof's receipt.
        var gap: Int
        /// Half seconds from the window's start to its receipt, and the window's length.
        var lead: Int
        var length: Int

        var description: String { "\(side.rawValue) slot \(slot) +\(gap)/2 s, window \(length)/2 s ending \(lead - length)/2 s before receipt" }
    }

    static let steps = zip(Gen.bool, Gen.int(in: 0...1), Gen.int(in: 0...24), Gen.int(in: 0...12), Gen.int(in: 0...6))
        .map { Step(side: $0.0 ? .passenger : .driver, slot: Int64($0.1), gap: $0.2, lead: max($0.3, $0.4), length: $0.4) }
        .array(of: 1...12)

    static let base = 1_767_225_600.0

    @Test(arguments: StoreKind.available)
    func theStoresPairAndRefuseResendsAsTheRulesDo(kind: StoreKind) async throws {
        let store = try await TouchProofStoreTests.shared(kind)
        await propertyCheck(count: 60, input: Self.steps) { steps in
            let cast = try await Cast(store)
            let ride = try await TouchProofStoreTests.arrivedRide(store, cast)
            var kept: [KeptTouchProof] = []
            var confirmed = false
            var receivedHalves = 0
            for step in steps {
                receivedHalves += step.gap
                let received = Self.base + Double(receivedHalves) / 2
                let from = received - Double(step.lead) / 2
                let until = from + Double(step.length) / 2
                let new = KeptTouchProof(side: step.side, slot: step.slot, receivedAt: received, from: from, until: until)
                let proof = VerifiedTouchProof(rideID: ride.id, side: step.side, accountID: step.side == .passenger ? cast.passenger.id : cast.driver.id,
                                               slot: step.slot, uuid: UUID(), major: 1, minor: 2, peakRssiDbm: -40, samples: 5,
                                               observedAt: Date(timeIntervalSince1970: until), receivedAt: Date(timeIntervalSince1970: received),
                                               observedFrom: Date(timeIntervalSince1970: from), observedUntil: Date(timeIntervalSince1970: until))
                do {
                    let recording = try await store.recordTouchProof(proof, policy: .mutual, idempotency: nil)
                    #expect(!confirmed, "\(step) recorded on a confirmed ride")
                    #expect(!TouchPairing.isResend(new, of: kept), "\(step) taken; the rule says it is a resend of \(kept)")
                    let outcome = TouchPairing.outcome(of: new, among: kept)
                    #expect(recording.confirmed == (outcome == .confirmed), "\(step) among \(kept): the rule says \(outcome)")
                    #expect((recording.notSimultaneous == true) == (outcome == .notSimultaneous), "\(step) among \(kept): the rule says \(outcome)")
                    kept.append(new)
                    confirmed = recording.confirmed
                } catch StoreError.illegalTransition(let from, _) {
                    #expect(confirmed && from == .confirmed, "\(step) refused as \(from)")
                } catch StoreError.replayed {
                    #expect(!confirmed && TouchPairing.isResend(new, of: kept), "\(step) refused as a resend of \(kept)")
                }
            }
        }
    }
}
