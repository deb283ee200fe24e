import BeaconCore
import Foundation
import SessionDoubles
import RideSession
import Testing

/// The in-memory ride service keeps the server's rules (RideWire's): if it did not, the
/// session tests that run on it would prove nothing.
@Suite("InMemoryRideService")
struct InMemoryRideServiceTests {
    static let start = 1_700_000_010.0  // a 30 s slot boundary (1_700_000_010 = 30 × 56_666_667)
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 5, count: 32))

    /// What `side` saw of the other's beacon, its window `from...until` in virtual seconds.
    static func seen(by side: BeaconSide, from: Double, until: Double, slotOffset: Int64 = 0,
                     identity: RotatingIdentity = identity) -> TouchObservation {
        let other: BeaconSide = side == .driver ? .passenger : .driver
        let slot = UInt64(Int64(identity.slot(at: start + until)) + slotOffset)
        return TouchObservation(identity: identity.identity(of: other, slot: slot), slot: slot, peakFilteredRSSI: -31,
                                samples: 8, unixTime: start + until, firstUnixTime: start + from)
    }

    static func make(_ state: RideState = .arrived, rideWord: String? = nil) -> (InMemoryRideService, VirtualClock) {
        let clock = VirtualClock(unixTime: start)
        return (InMemoryRideService(rideID: "ride-1", identity: identity, state: state, rideWord: rideWord, clock: clock), clock)
    }

    @Test("mutual rule: the first proof waits, the other side's simultaneous one within the pairing window confirms")
    func mutualConfirms() async {
        let (service, clock) = Self.make()
        clock.advance(to: 2)
        #expect(await service.passenger.submitProof(Self.seen(by: .passenger, from: 1, until: 2), rideID: "ride-1") == .awaitingCounterpart)
        clock.advance(to: 2 + MutualTouchRule.pairingWindow - 1)
        #expect(await service.driver.submitProof(Self.seen(by: .driver, from: 1.5, until: 2.5), rideID: "ride-1") == .confirmed)
        #expect(service.rideState == .confirmed)
        #expect(service.history == [.arrived, .touchObserved(by: .passenger, from: Self.start + 1, until: Self.start + 2), .confirmed])
        // Once confirmed, proofs are refused by state, like the server's 409.
        guard case .rejected(let reason) = await service.passenger.submitProof(Self.seen(by: .passenger, from: 9, until: 10),
                                                                              rideID: "ride-1") else {
            Issue.record("a proof after confirmation was taken")
            return
        }
        #expect(reason.contains("confirmed"))
    }

    @Test("windows that do not meet are not one touch; proofs received too far apart do not pair")
    func notSimultaneousAndTooLate() async {
        let (service, clock) = Self.make()
        clock.advance(to: 3)
        _ = await service.passenger.submitProof(Self.seen(by: .passenger, from: 0, until: 1), rideID: "ride-1")
        // The driver's window starts 2 s after the passenger's ended: more than the tolerance.
        #expect(await service.driver.submitProof(Self.seen(by: .driver, from: 1 + MutualTouchRule.tolerance + 1, until: 3),
                                                 rideID: "ride-1") == .notSimultaneous)
        clock.advance(to: 3 + MutualTouchRule.pairingWindow + 1)
        let late = 3 + MutualTouchRule.pairingWindow + 1
        // Only the driver's own earlier proof is within the window now: nothing of the passenger's.
        #expect(await service.driver.submitProof(Self.seen(by: .driver, from: late - 1, until: late), rideID: "ride-1") == .awaitingCounterpart)
        #expect(service.rideState == .arrived)
    }

    @Test("a stale proof, another slot's, the wrong identity and a resend that adds nothing are refused and change nothing")
    func refusals() async {
        let (service, clock) = Self.make()
        clock.advance(to: TouchProof.maximumAge + 5)
        let refusals: [TouchObservation] = [
            Self.seen(by: .passenger, from: 1, until: 2),  // observed 13 s ago
            Self.seen(by: .passenger, from: 14, until: 15, slotOffset: -3),
            Self.seen(by: .passenger, from: 14, until: 15,
                      identity: try! RotatingIdentity(rideKey: [UInt8](repeating: 6, count: 32))),
        ]
        for observation in refusals {
            guard case .rejected = await service.passenger.submitProof(observation, rideID: "ride-1") else {
                Issue.record("taken: \(observation)")
                continue
            }
        }
        // The driver reporting its own beacon is the wrong identity too.
        guard case .rejected(let own) = await service.driver.submitProof(Self.seen(by: .passenger, from: 14, until: 15), rideID: "ride-1") else {
            Issue.record("the driver's own beacon was taken as the passenger's")
            return
        }
        #expect(own.contains("wrong identity"))
        #expect(await service.passenger.submitProof(Self.seen(by: .passenger, from: 14, until: 15), rideID: "ride-1") == .awaitingCounterpart)
        guard case .rejected(let resend) = await service.passenger.submitProof(Self.seen(by: .passenger, from: 14, until: 15.5),
                                                                              rideID: "ride-1") else {
            Issue.record("a resend within the tolerance was taken")
            return
        }
        #expect(resend.contains("replayed"))
        #expect(service.history == [.arrived, .touchObserved(by: .passenger, from: Self.start + 14, until: Self.start + 15)])
        #expect(service.rideState == .arrived)
    }

    @Test("the locator: once per minimum interval, ticking for the rule's seconds, only while arrived, only the passenger")
    func locatorWindow() async {
        let (service, clock) = Self.make()
        #expect(await service.passenger.requestLocator(rideID: "ride-1") == .ticking(seconds: Double(LocatorRule.soundSeconds)))
        clock.advance(to: 4)
        #expect(await service.passenger.requestLocator(rideID: "ride-1") == .tooSoon(retryAfter: LocatorRule.minimumInterval - 4))
        clock.advance(to: LocatorRule.minimumInterval)
        #expect(await service.passenger.requestLocator(rideID: "ride-1") == .ticking(seconds: Double(LocatorRule.soundSeconds)))
        guard case .refused = await service.driver.requestLocator(rideID: "ride-1") else {
            Issue.record("the driver asked for the locator")
            return
        }
        #expect(service.history == [.arrived, .locatorRequested(unixTime: Self.start), .locatorRequested(unixTime: Self.start + 10)])

        let (accepted, _) = Self.make(.accepted)
        guard case .refused(let reason) = await accepted.passenger.requestLocator(rideID: "ride-1") else {
            Issue.record("the locator sounded before arrival")
            return
        }
        #expect(reason.contains("accepted"))
    }

    @Test("the ride's states follow RideState's lifecycle; the stream replays history, then follows")
    func statesAndStream() async {
        let (service, _) = Self.make(.accepted, rideWord: "amber otter")
        #expect(!service.move(to: .completed), "accepted cannot complete")
        var updates = service.passenger.rideUpdates("ride-1").makeAsyncIterator()
        #expect(await updates.next() == .reachable(true))
        #expect(service.move(to: .arrived))
        #expect(await updates.next() == .arrived)
        #expect(await service.passenger.confirmByRideWord(rideID: "ride-1", word: "Amber  otter") == .confirmed)
        #expect(await updates.next() == .confirmed)
        #expect(service.move(to: .completed))
        #expect(await updates.next() == .completed)

        var late = service.driver.rideUpdates("ride-1").makeAsyncIterator()
        var replayed: [RideUpdate] = []
        for _ in 0..<4 { if let next = await late.next() { replayed.append(next) } }
        #expect(replayed == [.reachable(true), .arrived, .confirmed, .completed])
        #expect(service.calls == [.rideWord("Amber  otter", .confirmed)])
    }
}
