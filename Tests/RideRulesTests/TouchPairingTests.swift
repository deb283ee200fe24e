import Foundation
import RideRules
import RideWire
import Testing

/// The mutual touch rule, the pairing by receive times and the resend rule.
@Suite struct TouchPairingTests {
    static func proof(_ side: TouchSide, slot: Int64 = 7, received: Double, from: Double, until: Double) -> KeptTouchProof {
        KeptTouchProof(side: side, slot: slot, receivedAt: received, from: from, until: until)
    }

    @Test func windowsMeetWhenTheyOverlapOrMissByAtMostASecond() {
        #expect(TouchPairing.simultaneous(10, 12, 11, 13), "overlap")
        #expect(TouchPairing.simultaneous(10, 10, 11, 11), "1 s apart")
        #expect(TouchPairing.simultaneous(11, 11, 10, 10), "either order")
        #expect(!TouchPairing.simultaneous(10, 11, 12.5, 13), "1.5 s apart")
        #expect(!TouchPairing.simultaneous(12.5, 13, 10, 11))
    }

    @Test func aProofPairsWithTheOtherSidesReceivedWithinTenSeconds() {
        let passenger = Self.proof(.passenger, received: 100, from: 98, until: 99)
        #expect(TouchPairing.outcome(of: passenger, among: []) == .awaitingCounterpart)
        #expect(TouchPairing.outcome(of: Self.proof(.driver, received: 110, from: 97, until: 99.5), among: [passenger]) == .confirmed,
                "exactly the window apart")
        #expect(TouchPairing.outcome(of: Self.proof(.driver, received: 110.01, from: 97, until: 99.5), among: [passenger]) == .awaitingCounterpart)
        #expect(TouchPairing.outcome(of: Self.proof(.driver, received: 104, from: 101, until: 102), among: [passenger]) == .notSimultaneous)
        #expect(TouchPairing.outcome(of: Self.proof(.passenger, received: 101, from: 98, until: 99), among: [passenger]) == .awaitingCounterpart,
                "the same side never pairs with itself")
        // Receive times, not observation times: observed together, received 30 s apart.
        #expect(TouchPairing.outcome(of: Self.proof(.driver, received: 130, from: 98, until: 99), among: [passenger]) == .awaitingCounterpart)
        // A later proof meeting a kept one confirms although another kept one does not meet it.
        let far = Self.proof(.driver, received: 104, from: 120, until: 121)
        #expect(TouchPairing.outcome(of: Self.proof(.passenger, received: 105, from: 119, until: 120), among: [passenger, far]) == .confirmed)
    }

    @Test func aResendMustReachMoreThanASecondPastEveryAcceptedOne() {
        let kept = [Self.proof(.driver, slot: 7, received: 100, from: 95, until: 99)]
        #expect(TouchPairing.isResend(Self.proof(.driver, slot: 7, received: 101, from: 95, until: 100), of: kept), "1 s further")
        #expect(TouchPairing.isResend(Self.proof(.driver, slot: 7, received: 101, from: 95, until: 98), of: kept), "ends earlier")
        #expect(!TouchPairing.isResend(Self.proof(.driver, slot: 7, received: 101, from: 95, until: 100.01), of: kept))
        #expect(!TouchPairing.isResend(Self.proof(.driver, slot: 8, received: 101, from: 95, until: 99), of: kept), "another slot")
        #expect(!TouchPairing.isResend(Self.proof(.passenger, slot: 7, received: 101, from: 95, until: 99), of: kept), "the other side")
        #expect(TouchPairing.resentSince(until: Date(timeIntervalSince1970: 100)) == Date(timeIntervalSince1970: 99))
    }

    /// The stores' SQL filters on these bounds; they must say what `outcome` says.
    @Test func theSQLBoundsAreThePredicates() {
        let grid = stride(from: 90.0, through: 110.0, by: 0.25)
        let new = Self.proof(.passenger, received: 100, from: 99, until: 100)
        let received = TouchPairing.receiptBounds(around: Date(timeIntervalSince1970: new.receivedAt))
        let window = TouchPairing.windowBounds(from: Date(timeIntervalSince1970: new.from), until: Date(timeIntervalSince1970: new.until))
        for at in stride(from: 85.0, through: 115.0, by: 0.25) {
            let inBounds = received.earliest.timeIntervalSince1970 <= at && at <= received.latest.timeIntervalSince1970
            #expect(inBounds == TouchPairing.receivedTogether(at, new.receivedAt), "received at \(at)")
        }
        for from in grid {
            for until in grid where until >= from {
                let inBounds = from <= window.fromAtMost.timeIntervalSince1970 && until >= window.untilAtLeast.timeIntervalSince1970
                #expect(inBounds == TouchPairing.simultaneous(new.from, new.until, from, until), "\(from)...\(until)")
            }
        }
    }
}
