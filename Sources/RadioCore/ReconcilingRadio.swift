import BeaconCore
import NIOConcurrencyHelpers

/// What a radio's user wants of it: an advertisement (or none), scanning while any scan stream
/// is consumed, and whether it has been shut down. Written by the `Radio` calls, read by the
/// radio's reconciliation.
public final class RadioDemand: Sendable {
    private struct State {
        var advertisement: BeaconAdvertisement?
        var isShutdown = false
    }
    private let state = NIOLockedValueBox(State())
    /// Open scan streams.
    package let subscribers = Subscribers()
    /// Open connection-event streams.
    package let watchers = Subscribers()

    package init() {}

    package var advertisement: BeaconAdvertisement? {
        get { state.withLockedValue { $0.advertisement } }
        set { state.withLockedValue { $0.advertisement = newValue } }
    }

    package var isShutdown: Bool { state.withLockedValue { $0.isShutdown } }

    /// Marks the radio shut down and drops the advertisement; false if it already was.
    package func shutDown() -> Bool {
        state.withLockedValue { state in
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
    nonisolated var demand: RadioDemand { get }
    /// Brings the controller to what `demand` wants now, if connected; a controller that refuses
    /// a command is an error, a lost connection is not (the next connection applies it).
    func apply() async throws
}

extension ReconcilingRadio {
    public func startAdvertising(_ advertisement: BeaconAdvertisement) async throws {
        guard !demand.isShutdown else { throw RadioError("radio is shut down") }
        demand.advertisement = advertisement
        try await apply()
    }

    public func replaceAdvertisedBeacon(_ beacon: IBeacon) async throws {
        guard var advertisement = demand.advertisement else { throw RadioError("not advertising") }
        advertisement.beacon = beacon
        demand.advertisement = advertisement
        try await apply()
    }

    public func stopAdvertising() async throws {
        demand.advertisement = nil
        try await apply()
    }

    public nonisolated func scan() -> AsyncThrowingStream<RadioEvent, any Error> {
        let stream = demand.subscribers.make { [weak self] in
            Task { try? await self?.apply() }
        }
        Task { try? await self.apply() }
        return stream
    }

    public nonisolated func connectionEvents() -> AsyncThrowingStream<RadioEvent, any Error> {
        demand.watchers.make {}
    }

    /// Scan events dropped because a consumer fell behind.
    public nonisolated var droppedEvents: Int { demand.subscribers.droppedCount }
}
