import BeaconCore
import Foundation
import Phrasebook
import RideSession
import Testing

/// The driver's side at the kerb, scripted in virtual time: no radio, no clock, no server.
@Suite("DriverCore")
struct DriverCoreTests {
    static let base = 1_700_000_010.0  // a 30 s slot boundary (1_700_000_010 = 30 × 56_666_667)
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 7, count: 32))
    static let calibration = Calibration(model: .default, touchRSSI: -40)

    /// The passenger's beacon for the slot at `time`.
    static func passengerBeacon(at time: Double) -> IBeacon {
        identity.identity(of: .passenger, slot: identity.slot(at: base + time)).beacon(measuredPower: -59)
    }

    /// Feeds 10 Hz advertisements at `rssi` from `from` to `to` seconds; returns every action.
    static func feed(_ core: inout DriverCore, rssi: Double, from: Double, to: Double,
                     beacon: (Double) -> IBeacon = passengerBeacon) -> [(time: Double, action: DriverCore.Action)] {
        var out: [(Double, DriverCore.Action)] = []
        var time = from
        while time < to {
            for action in core.handle(.sighting(time: time, unixTime: base + time, rssi: rssi, beacon: beacon(time))) {
                out.append((time, action))
            }
            time += 0.1
        }
        return out
    }

    static func proofs(_ actions: [(time: Double, action: DriverCore.Action)]) -> [(Double, TouchObservation, Bool)] {
        actions.compactMap { if case .postProof(let o, let r) = $0.action { ($0.time, o, r) } else { nil } }
    }

    @Test("a touch is announced once; Enter proves it with this ride's passenger identity")
    func touchThenEnter() {
        var core = DriverCore(identity: Self.identity, calibration: Self.calibration, autoConfirm: false)
        #expect(Self.feed(&core, rssi: -75, from: 0, to: 3).isEmpty, "no touch at a distance")
        let touching = Self.feed(&core, rssi: -30, from: 3, to: 5)
        #expect(touching.map(\.action) == [.say(.touchDetectedPressEnter)])
        #expect(Self.proofs(touching).isEmpty, "nothing is sent before Enter")
        let sent = core.handle(.confirm(time: 5))
        guard case .postProof(let observation, let repeating)? = sent.first else {
            Issue.record("Enter sent no proof: \(sent)")
            return
        }
        #expect(!repeating)
        #expect(observation.identity == BeaconIdentity(Self.passengerBeacon(at: 4.9)))
        #expect(observation.slot == Self.identity.slot(at: Self.base + 4.9))
        #expect(observation.peakFilteredRSSI > -40)
        #expect(core.handle(.proofAnswered(.awaitingCounterpart, repeating: false)) == [.say(.proofAcceptedWaiting)])
    }

    @Test("auto-confirm proves at once, re-proves every 5 s while the touch goes on, and stops after a refusal")
    func autoConfirmResends() {
        var core = DriverCore(identity: Self.identity, calibration: Self.calibration, autoConfirm: true)
        _ = Self.feed(&core, rssi: -75, from: 0, to: 2)
        let first = Self.feed(&core, rssi: -30, from: 2, to: 4)
        #expect(first.first?.action == .say(.touchDetectedConfirming))
        #expect(Self.proofs(first).count == 1)
        #expect(core.handle(.proofAnswered(.awaitingCounterpart, repeating: false)) == [.say(.proofAcceptedWaiting)])
        let held = Self.proofs(Self.feed(&core, rssi: -30, from: 4, to: 14.05))
        #expect(held.count == 2, "re-proven at about 5 s intervals: \(held.map(\.0))")
        #expect(held.allSatisfy { $0.2 }, "re-proofs are marked repeating")
        // A repeat answered "awaiting" says nothing new.
        #expect(core.handle(.proofAnswered(.awaitingCounterpart, repeating: true)).isEmpty)
        let refused = core.handle(.proofAnswered(.rejected("stale slot"), repeating: true))
        #expect(refused == [.log(Phrasebook.english(.driverLogProofRefused, ["reason": .text("stale slot")]))])
        #expect(Self.proofs(Self.feed(&core, rssi: -30, from: 14.1, to: 25)).isEmpty, "no re-proof after a refusal")
    }

    @Test("Enter long after the touch ended asks for another touch instead of sending a stale proof")
    func staleTouch() {
        var core = DriverCore(identity: Self.identity, calibration: Self.calibration, autoConfirm: false)
        _ = Self.feed(&core, rssi: -30, from: 0, to: 2)
        _ = Self.feed(&core, rssi: -80, from: 2, to: 12)
        #expect(core.handle(.confirm(time: 12)) == [.say(.noRecentTouch)])
    }

    @Test("another car's passenger beacon neither starts nor ends this ride's touch")
    func otherRidesIgnored() {
        let other = try! RotatingIdentity(rideKey: [UInt8](repeating: 9, count: 32))
        var core = DriverCore(identity: Self.identity, calibration: Self.calibration, autoConfirm: false)
        let foreign = Self.feed(&core, rssi: -30, from: 0, to: 3) {
            other.identity(of: .passenger, slot: other.slot(at: Self.base + $0)).beacon(measuredPower: -59)
        }
        #expect(foreign.isEmpty)
        #expect(Self.feed(&core, rssi: -30, from: 3, to: 5).map(\.action) == [.say(.touchDetectedPressEnter)])
        // Interleaved far-away adverts of another ride do not release the touch: no second announcement.
        var time = 5.0
        var announcements = 0
        while time < 8 {
            let beacon = Int(time * 10) % 2 == 0 ? Self.passengerBeacon(at: time)
                : other.identity(of: .passenger, slot: other.slot(at: Self.base + time)).beacon(measuredPower: -59)
            let rssi = Int(time * 10) % 2 == 0 ? -30.0 : -90.0
            announcements += core.handle(.sighting(time: time, unixTime: Self.base + time, rssi: rssi, beacon: beacon))
                .filter { $0 == .say(.touchDetectedPressEnter) }.count
            time += 0.1
        }
        #expect(announcements == 0)
    }

    @Test("the ride's end finishes the session once; inputs after it change nothing")
    func rideEnds() {
        var core = DriverCore(identity: Self.identity, calibration: Self.calibration, autoConfirm: true)
        #expect(core.handle(.ride(.reachable(true))).isEmpty, "a first contact is not news")
        #expect(core.handle(.ride(.reachable(false))) == [.tell("Cannot reach the ride service, retrying. The signal goes on.")])
        #expect(core.handle(.ride(.reachable(false))).isEmpty, "each retry is not said again")
        #expect(core.handle(.ride(.reachable(true))) == [.tell("The ride service is reached again.")])
        #expect(core.handle(.ride(.arrived)).isEmpty)
        #expect(core.handle(.ride(.confirmed)) == [.finished(.confirmed)])
        #expect(core.outcome == .confirmed)
        #expect(core.handle(.ride(.cancelled)).isEmpty)
        #expect(Self.feed(&core, rssi: -30, from: 0, to: 2).isEmpty)
    }
}

/// Issue 12's mutual rule on the driver's side: the driver's proofs carry its observation
/// window, and without the passenger's device feeling the touch nothing confirms.
@Suite("DriverCore: mutual touch")
struct DriverCoreMutualTouchTests {
    @Test("proofs carry the window from the first touching advertisement to the last")
    func proofsCarryTheObservationWindow() {
        var core = DriverCore(identity: DriverCoreTests.identity, calibration: DriverCoreTests.calibration, autoConfirm: true)
        _ = DriverCoreTests.feed(&core, rssi: -75, from: 0, to: 2)
        let first = DriverCoreTests.proofs(DriverCoreTests.feed(&core, rssi: -30, from: 2, to: 4))
        _ = core.handle(.proofAnswered(.awaitingCounterpart, repeating: false))
        let again = DriverCoreTests.proofs(DriverCoreTests.feed(&core, rssi: -30, from: 4, to: 8))
        guard let proof = first.first?.1, let later = again.first?.1 else {
            Issue.record("no proofs: \(first) \(again)")
            return
        }
        #expect(proof.firstUnixTime >= DriverCoreTests.base + 2 && proof.firstUnixTime <= proof.unixTime)
        #expect(later.firstUnixTime == proof.firstUnixTime, "a re-proof of the same touch keeps its start")
        #expect(later.unixTime - later.firstUnixTime >= 4, "and extends its end")
    }

    @Test("the driver's jump alone: proofs are posted, nothing confirms, the core goes on")
    func driverFeelsItThePassengerDoesNot() {
        var core = DriverCore(identity: DriverCoreTests.identity, calibration: DriverCoreTests.calibration, autoConfirm: true)
        var answers: [ProofAnswer] = []
        var sent: [TouchObservation] = []
        var time = 0.0
        // A server whose passenger side never proves: every driver proof awaits its counterpart,
        // and the stream carries only the driver's own touch_observed events.
        while time < 30 {
            let unix = DriverCoreTests.base + time
            for action in core.handle(.sighting(time: time, unixTime: unix, rssi: -30, beacon: DriverCoreTests.passengerBeacon(at: time))) {
                guard case .postProof(let observation, let repeating) = action else { continue }
                sent.append(observation)
                answers.append(.awaitingCounterpart)
                _ = core.handle(.proofAnswered(.awaitingCounterpart, repeating: repeating))
                _ = core.handle(.ride(.touchObserved(by: .driver, from: observation.firstUnixTime, until: observation.unixTime)))
            }
            time += 0.1
        }
        #expect(sent.count >= 5, "re-proven while the touch goes on")
        #expect(core.outcome == nil, "no confirmation without the passenger's side")
    }

    @Test("the passenger's jump alone: the driver's device says and proves nothing")
    func passengerFeelsItTheDriverDoesNot() {
        var core = DriverCore(identity: DriverCoreTests.identity, calibration: DriverCoreTests.calibration, autoConfirm: true)
        // The passenger's beacon stays at arm's length for the driver's device.
        #expect(DriverCoreTests.feed(&core, rssi: -62, from: 0, to: 20).isEmpty)
        #expect(core.handle(.ride(.touchObserved(by: .passenger, from: DriverCoreTests.base + 5, until: DriverCoreTests.base + 8))).isEmpty)
        #expect(core.observation == nil && core.outcome == nil)
    }

    @Test("a proof of another moment is kept: the core re-proves the ongoing touch until it meets")
    func notSimultaneousKeepsReproving() {
        var core = DriverCore(identity: DriverCoreTests.identity, calibration: DriverCoreTests.calibration, autoConfirm: true)
        _ = DriverCoreTests.feed(&core, rssi: -30, from: 0, to: 1)
        let answer = core.handle(.proofAnswered(.notSimultaneous, repeating: false))
        #expect(answer.first == .say(.proofAcceptedWaiting))
        #expect(DriverCoreTests.proofs(DriverCoreTests.feed(&core, rssi: -30, from: 1, to: 7)).count == 1, "re-proven after 5 s")
        #expect(core.handle(.proofAnswered(.notSimultaneous, repeating: true)).isEmpty)
    }
}
