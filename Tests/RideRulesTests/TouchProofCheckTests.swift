import BeaconCore
import Foundation
import RideRules
import RideWire
import Testing

/// The touch-proof check the server and the in-memory double share: each refusal in its order.
@Suite struct TouchProofCheckTests {
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 3, count: 32))
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    /// What `side` saw of its counterpart's beacon, `age` s before `now`.
    static func proof(by side: TouchSide, age: Double = 1, slotOffset: Int64 = 0, beacon: BeaconSide? = nil,
                      window: Double? = nil) -> TouchProof {
        let slot = UInt64(Int64(identity.slot(at: now.timeIntervalSince1970)) + slotOffset)
        let seen = identity.identity(of: beacon ?? side.counterpart.beaconSide, slot: slot)
        let at = now.addingTimeInterval(-age)
        return TouchProof(uuid: seen.uuid, major: seen.major, minor: seen.minor, slot: slot, peakRssiDbm: -40,
                          samples: 8, observedAt: at, observedFrom: window.map { at.addingTimeInterval(-$0) })
    }

    static func refusal(_ proof: TouchProof, by side: TouchSide = .passenger) -> TouchProofRefusal? {
        do {
            _ = try TouchProofCheck.verify(proof, by: side, identity: identity, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func theCounterpartsBeaconNowIsTaken() throws {
        let checked = try TouchProofCheck.verify(Self.proof(by: .driver, window: 3), by: .driver, identity: Self.identity, now: Self.now)
        #expect(checked.slot == Self.identity.slot(at: Self.now.timeIntervalSince1970))
        #expect(checked.until.timeIntervalSince(checked.from) == 3)
        #expect(Self.refusal(Self.proof(by: .passenger, age: TouchProof.maximumAge)) == nil, "exactly the maximum age")
    }

    @Test func staleOrAheadProofsAreRefused() {
        #expect(Self.refusal(Self.proof(by: .passenger, age: TouchProof.maximumAge + 1))?.code == .staleProof)
        #expect(Self.refusal(Self.proof(by: .passenger, age: -(TouchProof.maximumAhead + 1)))?.field == "observedAt")
        #expect(Self.refusal(Self.proof(by: .passenger, age: -TouchProof.maximumAhead)) == nil)
    }

    @Test func anotherSlotOrIdentityIsRefused() {
        #expect(Self.refusal(Self.proof(by: .passenger, slotOffset: 1)) == nil, "one slot ahead is within the accepted range")
        #expect(Self.refusal(Self.proof(by: .passenger, slotOffset: -3))?.code == .staleSlot)
        let own = Self.refusal(Self.proof(by: .passenger, beacon: .passenger))
        #expect(own?.code == .wrongIdentity && own?.message.contains("your own beacon") == true)
        #expect(Self.refusal(Self.proof(by: .driver, beacon: .driver), by: .driver)?.code == .wrongIdentity)
        #expect(Self.refusal(Self.proof(by: .driver), by: .driver) == nil)
    }

    @Test func malformedFieldsAreNamedWithoutAClock() {
        var proof = Self.proof(by: .passenger)
        proof.uuid = "nope"
        #expect(Self.refusal(proof) == .invalidField(field: "uuid", message: "must be a UUID like 8-4-4-4-12 hex digits"))
        proof = Self.proof(by: .passenger)
        proof.samples = 0
        #expect(Self.refusal(proof)?.field == "samples")
        proof = Self.proof(by: .passenger)
        proof.observedUntil = nil
        proof.observedFrom = WireDates.format(Self.now)
        #expect(Self.refusal(proof)?.field == "observedUntil")
        #expect(Self.refusal(Self.proof(by: .passenger, window: MutualTouchRule.maximumWindow + 1)) == nil,
                "a client's window is clamped to clientWindow")
        proof = Self.proof(by: .passenger)
        proof.observedFrom = WireDates.format(Self.now.addingTimeInterval(-MutualTouchRule.maximumWindow - 2))
        proof.observedUntil = proof.observedAt
        #expect(Self.refusal(proof)?.field == "observedFrom")
    }
}

/// The per-ride limits and the locator's interval.
@Suite struct RideLimitsTests {
    @Test func theLocatorWaitsItsIntervalAfterTheLastRequest() {
        #expect(RideLimits.locatorRetryAfter(last: nil, now: 5) == nil)
        #expect(RideLimits.locatorRetryAfter(last: 100, now: 104) == LocatorRule.minimumInterval - 4)
        #expect(RideLimits.locatorRetryAfter(last: 100, now: 100 + LocatorRule.minimumInterval) == nil)
        #expect(RideLimits.locatorRetryAfter(last: 100, now: 115, minimumInterval: 20) == 5)
    }

    @Test func theCapsAreTheDocumentedOnes() {
        // Changing one needs a new PostgreSQL migration (RideHistoryCaps writes them into its text).
        #expect(RideLimits.locatorRequestsPerRide == 60 && RideLimits.touchProofsPerRide == 60)
        #expect(RideLimits.etaUpdatesPerRide == 20 && RideLimits.rideWordAttemptsPerRide == 5)
        #expect(RideLimits.guideReportsPerRide == 20 && RideLimits.meetingMovesPerRide == 10 && RideLimits.messagesPerRide == 30)
    }
}
