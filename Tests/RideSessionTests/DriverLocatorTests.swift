import BeaconCore
import Foundation
import RideSession
import Testing

/// The driver's side of the locator sound, scripted: when a request starts the ticks, for how
/// long, what the driver is told, and what stops them.
@Suite("DriverCore: the locator sound")
struct DriverLocatorTests {
    typealias Support = DriverCoreTests
    static let lookingForCar = DriverCore.Action.say(.passengerLookingForCar)

    static func core() -> DriverCore {
        DriverCore(identity: Support.identity, calibration: Support.calibration, autoConfirm: true)
    }

    @Test("a fresh request: the driver is told why and what to do, then 30 s of ticks")
    func freshRequestStartsTheTicksAndSaysWhy() {
        var core = Self.core()
        let actions = core.handle(.locatorRequested(time: 5, unixTime: Support.base + 5, requestedAt: Support.base + 5))
        #expect(actions == [Self.lookingForCar, .locator(.start(seconds: 30))])
        #expect(DriverPhrase.passengerLookingForCar.rawValue.contains("open the window, or step out to the kerb with the device"))
        #expect(core.locatorUntil == 35)
    }

    @Test("a request replayed from the history sounds only what is left of its 30 s, or nothing")
    func oldRequestsSoundWhatIsLeft() {
        var core = Self.core()
        #expect(core.handle(.locatorRequested(time: 0, unixTime: Support.base, requestedAt: Support.base - 45)).isEmpty)
        #expect(core.handle(.locatorRequested(time: 0, unixTime: Support.base, requestedAt: Support.base - 29.5)).isEmpty,
                "under a second left is not worth a tick")
        #expect(core.handle(.locatorRequested(time: 0, unixTime: Support.base, requestedAt: Support.base - 12))
                == [Self.lookingForCar, .locator(.start(seconds: 18))])
    }

    @Test("asking again while it ticks restarts the 30 s without repeating the announcement")
    func repeatedRequestRestartsQuietly() {
        var core = Self.core()
        _ = core.handle(.locatorRequested(time: 0, unixTime: Support.base, requestedAt: Support.base))
        #expect(core.handle(.locatorRequested(time: 12, unixTime: Support.base + 12, requestedAt: Support.base + 12))
                == [.locator(.start(seconds: 30))])
        // After it ran out, a new request is announced again.
        #expect(core.handle(.locatorRequested(time: 60, unixTime: Support.base + 60, requestedAt: Support.base + 60))
                == [Self.lookingForCar, .locator(.start(seconds: 30))])
    }

    @Test("the touch stops the ticks before anything else is said")
    func touchStopsTheTicks() {
        var core = Self.core()
        _ = Support.feed(&core, rssi: -75, from: 0, to: 2)
        _ = core.handle(.locatorRequested(time: 2, unixTime: Support.base + 2, requestedAt: Support.base + 2))
        let touching = Support.feed(&core, rssi: -30, from: 2, to: 4).map(\.action)
        #expect(touching.first == .locator(.stop))
        #expect(touching.dropFirst().first == .say(.touchDetectedConfirming))
        #expect(touching.filter { $0 == .locator(.stop) }.count == 1)
        #expect(core.locatorUntil == nil)
    }

    @Test("the end of the ride stops the ticks; a touch after they ran out stops nothing")
    func endOfRideStopsTheTicks() {
        var core = Self.core()
        _ = core.handle(.locatorRequested(time: 0, unixTime: Support.base, requestedAt: Support.base))
        #expect(core.handle(.ride(.cancelled)) == [.locator(.stop), .finished(.cancelled)])

        var expired = Self.core()
        _ = expired.handle(.locatorRequested(time: 0, unixTime: Support.base, requestedAt: Support.base))
        _ = Support.feed(&expired, rssi: -75, from: 31, to: 33)
        #expect(!Support.feed(&expired, rssi: -30, from: 33, to: 35).map(\.action).contains(.locator(.stop)))
    }

    @Test("no ticks once the devices touch: the passenger is already there")
    func noTicksDuringATouch() {
        var core = Self.core()
        _ = Support.feed(&core, rssi: -30, from: 0, to: 2)
        #expect(core.handle(.locatorRequested(time: 2, unixTime: Support.base + 2, requestedAt: Support.base + 2)).isEmpty)
    }
}
