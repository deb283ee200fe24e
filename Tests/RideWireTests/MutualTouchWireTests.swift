import Foundation
import RideWire
import Testing

/// The mutual touch rule's wire parts: the `touch_observed` event's detail and the proof body's
/// optional window (the rule itself: RideRulesTests).
@Suite struct MutualTouchWireTests {
    @Test func touchObservedDetailRoundTripsAndNothingElseParses() throws {
        let observed = TouchObserved(side: .driver, from: Date(timeIntervalSince1970: 1_767_225_600.25),
                                     until: Date(timeIntervalSince1970: 1_767_225_601.5))
        #expect(observed.detail == "touch_observed by driver from 2026-01-01T00:00:00.250Z until 2026-01-01T00:00:01.500Z")
        #expect(TouchObserved(detail: observed.detail) == observed)
        let event = RideEvent(id: 7, requestID: "q", rideID: "r", sequence: 4, kind: .touchObserved, state: .arrived, actorID: "d",
                              at: Date(), detail: observed.detail)
        #expect(event.touchObserved == observed && event.name == "touch_observed")
        // A state change's free text (a cancellation's reason) never reads as one.
        var cancelled = event
        cancelled.kind = .stateChanged
        cancelled.state = .cancelled
        #expect(cancelled.touchObserved == nil && cancelled.name == "cancelled")
        for text in ["touch_observed by driver", "touch_observed by pilot from 2026-01-01T00:00:00Z until 2026-01-01T00:00:01Z",
                     "touch_observed by driver from yesterday until today", "arrived"] {
            #expect(TouchObserved(detail: text) == nil, "\(text)")
        }
    }

    @Test func theWindowIsOptionalOnTheWire() throws {
        let bare = TouchProof(uuid: "u", major: 1, minor: 2, slot: 3, peakRssiDbm: -40, samples: 5, observedAt: "t")
        let keys = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(bare)) as? [String: Any]).keys
        #expect(!keys.contains("observedFrom") && !keys.contains("observedUntil"))
        let held = TouchProof(uuid: "u", major: 1, minor: 2, slot: 3, peakRssiDbm: -40, samples: 5, observedAt: "t",
                              observedFrom: "f", observedUntil: "t")
        let heldKeys = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(held)) as? [String: Any]).keys
        #expect(heldKeys.contains("observedFrom") && heldKeys.contains("observedUntil"))
    }

    @Test func theTypedProofIsClampedToWhatTheServerTakes() throws {
        let at = Date(timeIntervalSince1970: 1_700_000_100.25)
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        // A peak above the range, a window longer than clients claim.
        let proof = TouchProof(uuid: uuid, major: 7, minor: 9, slot: 56_666_670, peakRssiDbm: 25.04, samples: 3,
                               observedAt: at, observedFrom: at - 100)
        #expect(proof.peakRssiDbm == TouchProof.peakRssiRange.upperBound)
        #expect(proof.observedAt == WireDates.format(at) && proof.observedUntil == proof.observedAt)
        #expect(proof.observedFrom == WireDates.format(at - MutualTouchRule.clientWindow))
        #expect(proof.uuid == uuid.uuidString && proof.major == 7 && proof.minor == 9 && proof.slot == 56_666_670)
        // Whole tenths inside the range; no window without a start.
        let bare = TouchProof(uuid: uuid, major: 7, minor: 9, slot: 1, peakRssiDbm: -38.46, samples: 3, observedAt: at)
        #expect(bare.peakRssiDbm == -38.5 && bare.observedFrom == nil && bare.observedUntil == nil)
    }
}
