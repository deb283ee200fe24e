import BeaconCore
import Foundation
import RadioCore
import Synchronization

/// A `Radio` a test plays: it hears what the test says it hears (`hear`), stamped with the
/// test's `VirtualClock`, and records what the code under test did with it (`calls`, in order).
/// Scans can be made to fail (`failScans`), so a runtime's handling of a broken radio is seen.
///
/// ```swift
/// let radio = ScriptedRadio(clock: clock)
/// #expect(await eventually { radio.scanning })
/// radio.hear(driverBeacon, rssi: -40)      // every scan being consumed gets it
/// #expect(radio.calls.contains(.startAdvertising(passengerBeacon)))
/// ```
public final class ScriptedRadio: Radio, Sendable {
    /// What the code under test asked of the radio.
    public enum Call: Equatable, Sendable {
        case startAdvertising(IBeacon)
        case replaceAdvertisedBeacon(IBeacon)
        case setAdvertisingInterval(Int)
        case stopAdvertising
        case scanStarted
        case scanEnded
        case shutdown
    }

    private struct State {
        var calls: [Call] = []
        var scans: [UInt64: AsyncThrowingStream<RadioEvent, any Error>.Continuation] = [:]
        var nextScan: UInt64 = 0
        var scanFailure: RadioError?
        var advertised: IBeacon?
        var interval: Int?
        var transmitPower: Int8?
    }

    private let state = Mutex(State())
    private let clock: VirtualClock
    /// The address every sighting comes from.
    public let address = BDAddress(rawValue: 0xC0FFEE00_0001)

    /// A radio whose sightings are stamped on `clock`.
    public init(clock: VirtualClock) {
        self.clock = clock
    }

    /// Everything asked of the radio so far, in order.
    public var calls: [Call] { state.withLock { $0.calls } }
    /// The frame on the air now (nil when not advertising).
    public var advertised: IBeacon? { state.withLock { $0.advertised } }
    /// The interval on the air now (nil when not advertising).
    public var interval: Int? { state.withLock { $0.interval } }
    /// Whether a scan is being consumed now.
    public var scanning: Bool { state.withLock { !$0.scans.isEmpty } }

    /// Every scan being consumed hears `beacon` at `rssi`, arrived at virtual time `at`
    /// (default: now); its wall-clock stamp is the same moment.
    public func hear(_ beacon: IBeacon, rssi: Int8, at time: Double? = nil) {
        let time = time ?? clock.now
        let sighting = RadioSighting(address: address, addressType: .publicDevice, rssi: rssi, receivedAt: clock.instant(at: time),
                                     unixMicroseconds: Int64(((clock.startUnixTime + time) * 1e6).rounded()),
                                     advertisingData: beacon.advertisingData, beacon: beacon)
        let scans = state.withLock { Array($0.scans.values) }
        for scan in scans { scan.yield(.sighting(sighting)) }
    }

    /// Every scan being consumed hears `event` (`.lost`, `.restored`).
    public func report(_ event: RadioEvent) {
        let scans = state.withLock { Array($0.scans.values) }
        for scan in scans { scan.yield(event) }
    }

    /// From now on every scan fails at once with `error` (nil: scans work again); scans being
    /// consumed fail now.
    public func failScans(_ error: RadioError?) {
        let failing = state.withLock { state -> [AsyncThrowingStream<RadioEvent, any Error>.Continuation] in
            state.scanFailure = error
            return error == nil ? [] : Array(state.scans.values)
        }
        for scan in failing { scan.finish(throwing: error) }
    }

    /// From now on the radio reports `power` dBm as its advertising power (nil: it does not say).
    public func reportTransmitPower(_ power: Int8?) {
        state.withLock { $0.transmitPower = power }
    }

    public func startAdvertising(_ advertisement: BeaconAdvertisement) async throws {
        state.withLock {
            $0.calls.append(.startAdvertising(advertisement.beacon))
            $0.advertised = advertisement.beacon
            $0.interval = advertisement.intervalMilliseconds
        }
    }

    public func setAdvertisingInterval(milliseconds: Int) async throws {
        try state.withLock {
            guard $0.advertised != nil else { throw RadioError("not advertising") }
            $0.calls.append(.setAdvertisingInterval(milliseconds))
            $0.interval = milliseconds
        }
    }

    public var advertisingTransmitPower: Int8? {
        get async { state.withLock { $0.advertised == nil ? nil : $0.transmitPower } }
    }

    public func replaceAdvertisedBeacon(_ beacon: IBeacon) async throws {
        state.withLock {
            $0.calls.append(.replaceAdvertisedBeacon(beacon))
            $0.advertised = beacon
        }
    }

    public func stopAdvertising() async throws {
        state.withLock {
            $0.calls.append(.stopAdvertising)
            $0.advertised = nil
            $0.interval = nil
        }
    }

    public func scan() -> AsyncThrowingStream<RadioEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<RadioEvent, any Error>.makeStream()
        let failure = state.withLock { state -> RadioError? in
            state.calls.append(.scanStarted)
            if let failure = state.scanFailure { return failure }
            state.nextScan += 1
            state.scans[state.nextScan] = continuation
            let id = state.nextScan
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock {
                    if $0.scans.removeValue(forKey: id) != nil { $0.calls.append(.scanEnded) }
                }
            }
            return nil
        }
        if let failure {
            state.withLock { $0.calls.append(.scanEnded) }
            continuation.finish(throwing: failure)
        }
        return stream
    }

    public func connectionEvents() -> AsyncThrowingStream<RadioEvent, any Error> {
        AsyncThrowingStream { _ in }
    }

    public func shutdown() async {
        let scans = state.withLock { state -> [AsyncThrowingStream<RadioEvent, any Error>.Continuation] in
            state.calls.append(.shutdown)
            state.advertised = nil
            return Array(state.scans.values)
        }
        for scan in scans { scan.finish() }
    }
}
