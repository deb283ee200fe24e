import BeaconCore
import Foundation
import Phrasebook
import RadioCore
import SessionDoubles
import TestSupport
import RideSession
import Synchronization
import Testing

/// `DriverSession` whole, in process and in virtual time: a scripted radio, the in-memory ride
/// service (the server's rules), a `VirtualClock`. What is asserted is what the session did and
/// in what order: what went on the air, what the driver heard, what the service was asked.
@Suite("DriverSession")
struct DriverSessionTests {
    static let start = 1_700_000_010.0
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 7, count: 32))
    static let calibration = Calibration(model: .default, touchRSSI: -40)
    static let template = BeaconAdvertisement(beacon: IBeacon(uuid: UUID(), major: 0, minor: 0, measuredPower: -59))

    /// One session under test and everything around it.
    struct Rig {
        let clock = VirtualClock(unixTime: DriverSessionTests.start)
        let radio: ScriptedRadio
        let service: InMemoryRideService
        let said = Lines()
        let logged = Lines()
        let keys: AsyncStream<DriverKey>
        let pressKey: AsyncStream<DriverKey>.Continuation
        let confirmations: AsyncStream<Void>
        let pressEnter: AsyncStream<Void>.Continuation

        init() {
            radio = ScriptedRadio(clock: clock)
            service = InMemoryRideService(rideID: "ride-1", identity: DriverSessionTests.identity, clock: clock)
            (keys, pressKey) = AsyncStream<DriverKey>.makeStream()
            (confirmations, pressEnter) = AsyncStream<Void>.makeStream()
        }

        func session(autoConfirm: Bool, book: Phrasebook = .english) -> DriverSession {
            DriverSession(rideID: "ride-1", identity: DriverSessionTests.identity, calibration: DriverSessionTests.calibration,
                          autoConfirm: autoConfirm, radio: radio, template: DriverSessionTests.template, service: service.driver,
                          clock: clock, confirmations: confirmations,
                          say: said.append, log: logged.append, keys: keys, book: book)
        }

        /// The passenger's beacon heard at `rssi`, 10 Hz for `seconds` of virtual time.
        func hearPassenger(rssi: Int8, seconds: Double) async {
            let end = clock.now + seconds
            while clock.now < end - 1e-9 {
                let slot = DriverSessionTests.identity.slot(at: clock.unixTime)
                radio.hear(DriverSessionTests.identity.identity(of: .passenger, slot: slot).beacon(measuredPower: -59), rssi: rssi)
                clock.advance(by: 0.1)
                // Let the session take it before the next (the radio's stream buffers anyway).
                await Task.yield()
            }
        }

        var saidLines: [String] { said.all }
    }

    /// Issue 37 (point 12): the device's operator lines were English whatever his language.
    @Test("the radio lost and restored are logged in the driver's language")
    func radioLinesAreInHisLanguage() async throws {
        let rig = Rig()
        let book = Phrasebook(.es)
        let run = Task { await rig.session(autoConfirm: true, book: book).run() }
        #expect(await eventually { rig.radio.scanning })
        rig.radio.report(.lost(RadioLoss(reason: "hci0 down")))
        rig.radio.report(.restored)
        let lost = book(.driverLogRadioLost, ["reason": .text("hci0 down")])
        #expect(await eventually { rig.logged.all.contains(lost) && rig.logged.all.contains(book(.driverLogRadioRestored)) }, "\(rig.logged.all)")
        #expect(!rig.logged.all.contains { $0.hasPrefix("radio lost") }, "\(rig.logged.all)")
        run.cancel()
        _ = await run.value
    }

    @Test("the driver's identity goes on the air; a touch is proved at once (auto-confirm); the passenger's proof of the same moment confirms the ride and ends the session")
    func touchConfirmsTheRide() async throws {
        let rig = Rig()
        let run = Task { await rig.session(autoConfirm: true).run() }
        #expect(await eventually { rig.radio.scanning && rig.radio.advertised != nil })
        let slot = Self.identity.slot(at: Self.start)
        let onAir = rig.radio.calls.first { if case .startAdvertising = $0 { true } else { false } }
        #expect(onAir == .startAdvertising(Self.identity.identity(of: .driver, slot: slot).beacon(measuredPower: -59)))

        // Far, then touching: the driver's side proves at once, and waits for the passenger's.
        await rig.hearPassenger(rssi: -75, seconds: 1)
        await rig.hearPassenger(rssi: -28, seconds: 1.5)
        #expect(await eventually { rig.saidLines.count == 2 })
        #expect(rig.saidLines == [DriverPhrase.touchDetectedConfirming.rawValue, DriverPhrase.proofAcceptedWaiting.rawValue])
        guard case .touchObserved(by: .driver, let from, let until)? = rig.service.history.last else {
            Issue.record("the driver's proof was not on the ride's stream: \(rig.service.history)")
            return
        }
        // Proved at the touch's first moment: the window lies in the touching stretch (arrival
        // times, virtual seconds 1...2.5; the clock moved in tenths, so a hair under).
        #expect(from > Self.start + 0.99 && from <= until && until < Self.start + 2.5)

        // The passenger's device felt the same moment.
        let passengerSaw = TouchObservation(identity: Self.identity.identity(of: .driver, slot: slot), slot: slot,
                                            peakFilteredRSSI: -30, samples: 6, unixTime: until, firstUnixTime: from)
        #expect(await rig.service.passenger.submitProof(passengerSaw, rideID: "ride-1") == .confirmed)
        #expect(await run.value == .confirmed)
        #expect(rig.service.calls == [.proof(.driver, .awaitingCounterpart), .proof(.passenger, .confirmed)])
    }

    @Test("a locator request is asked of the driver in words; the answer reaches the service; a second request inside the window is refused there")
    func locatorRequestAndAnswer() async throws {
        let rig = Rig()
        let run = Task { await rig.session(autoConfirm: false).run() }
        #expect(await eventually { rig.radio.scanning })
        #expect(await rig.service.passenger.requestLocator(rideID: "ride-1") == .ticking(seconds: Double(LocatorRule.soundSeconds)))
        // The passenger is not heard: the loudest allowed sound, the horn.
        let horn = LocatorInstruction.horn.words(passenger: "Your passenger")
        #expect(await eventually { rig.saidLines.contains(horn) })
        rig.pressKey.yield(.done)
        #expect(await eventually { rig.service.calls.contains(.locatorAnswered(.horn)) })
        // Said once the answer was delivered.
        #expect(await eventually { rig.saidLines.count == 2 })
        rig.clock.advance(to: 4)
        #expect(await rig.service.passenger.requestLocator(rideID: "ride-1") == .tooSoon(retryAfter: LocatorRule.minimumInterval - 4))

        // The dispatcher cancels: the session ends with the ride.
        #expect(rig.service.move(to: .cancelled))
        #expect(await run.value == .cancelled)
        #expect(rig.saidLines == [horn, "Your passenger is told to listen for it."])
        #expect(rig.service.calls == [.locatorRequested(.ticking(seconds: Double(LocatorRule.soundSeconds))), .locatorAnswered(.horn),
                                      .locatorRequested(.tooSoon(retryAfter: LocatorRule.minimumInterval - 4))])
    }

    @Test("Enter without a recent touch sends nothing; the identity rotates at the slot boundary on the session's clock")
    func enterWithoutTouchAndRotation() async throws {
        let rig = Rig()
        let run = Task { await rig.session(autoConfirm: false).run() }
        #expect(await eventually { rig.radio.scanning && rig.clock.sleeperCount >= 1 })
        rig.pressEnter.yield()
        #expect(await eventually { rig.saidLines == [DriverPhrase.noRecentTouch.rawValue] })
        let slot = Self.identity.slot(at: Self.start)
        rig.clock.advance(toUnixTime: Self.identity.start(of: slot + 1))
        let next = Self.identity.identity(of: .driver, slot: slot + 1).beacon(measuredPower: -59)
        #expect(await eventually { rig.radio.advertised == next })
        #expect(rig.service.calls.isEmpty, "no proof was sent")
        run.cancel()
        #expect(await run.value == nil)
    }
}

/// Lines a session said or logged, in order.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    @Sendable func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
