import BeaconCore
import Synchronization

/// What a radio's user wants of it: an advertisement (or none), scanning while any scan stream
/// is consumed, and whether it has been shut down. Written by the `Radio` calls, read by the
/// radio's reconciliation.
public final class RadioDemand: Sendable {
    private struct State {
        var advertisement: BeaconAdvertisement?
        var isShutdown = false
    }
    private let state = Mutex(State())
    /// Open scan streams.
    package let subscribers = Subscribers()
    /// Open connection-event streams.
    package let watchers = Subscribers()

    package init() {}

    package var advertisement: BeaconAdvertisement? {
        get { state.withLock { $0.advertisement } }
        set { state.withLock { $0.advertisement = newValue } }
    }

    package var isShutdown: Bool { state.withLock { $0.isShutdown } }

    /// Marks the radio shut down and drops the advertisement; false if it already was.
    package func shutDown() -> Bool {
        state.withLock { state in
            defer { state.isShutdown = true; state.advertisement = nil }
            return !state.isShutdown
        }
    }

    /// Scanning is wanted while a scan stream is open and the radio is not shut down.
    package var wantsScanning: Bool { !subscribers.isEmpty && !isShutdown }

    /// Tells every stream (scan and connection events).
    package func broadcast(_ event: RadioEvent) {
        subscribers.yield(event)
        watchers.yield(event)
    }
}

/// A radio that records what is wanted in a `RadioDemand` and brings its controller to it in
/// `apply()`. Every Radio call but `shutdown()` is the same for all such radios and lives here.
public protocol ReconcilingRadio: Actor, Radio {
    /// What the radio's user wants; the `Radio` calls write it, `apply()` reads it.
    nonisolated var demand: RadioDemand { get }
    /// Brings the controller to what `demand` wants now, if connected; a controller that refuses
    /// a command is an error, a lost connection is not (the next connection applies it).
    func apply() async throws
}

extension ReconcilingRadio {
    /// Records `advertisement` as wanted and applies it; throws after `shutdown()`.
    public func startAdvertising(_ advertisement: BeaconAdvertisement) async throws {
        guard !demand.isShutdown else { throw RadioError("radio is shut down") }
        demand.advertisement = advertisement
        try await apply()
    }

    /// Swaps the advertised frame, keeping interval and type; throws when nothing is advertised.
    public func replaceAdvertisedBeacon(_ beacon: IBeacon) async throws {
        guard var advertisement = demand.advertisement else { throw RadioError("not advertising") }
        advertisement.beacon = beacon
        demand.advertisement = advertisement
        try await apply()
    }

    /// Changes the wanted interval, keeping the frame, type and address; throws when nothing is advertised.
    public func setAdvertisingInterval(milliseconds: Int) async throws {
        guard var advertisement = demand.advertisement else { throw RadioError("not advertising") }
        advertisement.intervalMilliseconds = milliseconds
        demand.advertisement = advertisement
        try await apply()
    }

    /// Records that nothing is to be advertised and applies it.
    public func stopAdvertising() async throws {
        demand.advertisement = nil
        try await apply()
    }

    /// A new scan stream; scanning starts with the first open stream and stops after the last ends.
    public nonisolated func scan() -> AsyncThrowingStream<RadioEvent, any Error> {
        let stream = demand.subscribers.make { [weak self] in
            Task { try? await self?.apply() }
        }
        Task { try? await self.apply() }
        return stream
    }

    /// A stream of `.lost` and `.restored` only; opening it does not start a scan.
    public nonisolated func connectionEvents() -> AsyncThrowingStream<RadioEvent, any Error> {
        demand.watchers.make {}
    }

    /// Scan events dropped because a consumer fell behind.
    public nonisolated var droppedEvents: Int { demand.subscribers.droppedCount }
}
