import Foundation
import RideSession
import Synchronization

/// A `SessionClock` that moves only when the test says so: the session runtimes
/// (`DriverSession`, `LiveGuide`, `IdentityAdvertiser`) run in virtual time, and a test asserts
/// what they did and in what order, never how long it took.
///
/// `now` counts virtual seconds from 0; `unixTime` is `startUnixTime + now`. Sleepers wake when
/// `advance` reaches their time (in time order), or with `CancellationError` when their task is
/// cancelled. A radio's arrival stamps map onto the timeline through `instant(at:)` /
/// `now(at:)` (`ScriptedRadio` stamps its sightings so).
///
/// ```swift
/// let clock = VirtualClock(unixTime: 1_700_000_010)
/// let session = Task { await advertiser.run() }
/// clock.advance(by: 30)          // the next slot's identity goes on the air
/// ```
public final class VirtualClock: SessionClock, Sendable {
    private struct Sleeper {
        var until: Double
        var resume: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = 0.0
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        /// Sleepers cancelled before they were registered.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())
    /// Wall-clock seconds at virtual time 0.
    public let startUnixTime: Double
    /// The machine instant virtual time 0 stands for (arrival stamps map through it).
    private let anchor = ContinuousClock.now

    /// A clock at virtual time 0 whose wall clock reads `unixTime`.
    public init(unixTime: Double) {
        startUnixTime = unixTime
    }

    public var now: Double { state.withLock { $0.now } }
    public var unixTime: Double { startUnixTime + now }

    /// Tasks asleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The machine instant standing for virtual time `time` (a sighting's `receivedAt`).
    public func instant(at time: Double) -> ContinuousClock.Instant {
        anchor + .nanoseconds(Int64((time * 1e9).rounded()))
    }

    public func now(at instant: ContinuousClock.Instant) -> Double {
        let elapsed = instant - anchor
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    public func sleep(untilUnixTime target: Double) async throws {
        try await sleep(untilVirtual: target - startUnixTime)
    }

    public func sleep(seconds: Double) async throws {
        try await sleep(untilVirtual: now + seconds)
    }

    private func sleep(untilVirtual target: Double) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if state.now >= target { return .success(()) }
                    state.sleepers[id] = Sleeper(until: target, resume: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.resume.resume(throwing: CancellationError())
        }
        // A sleeper that finished normally leaves no mark behind.
        _ = state.withLock { $0.cancelledEarly.remove(id) }
    }

    /// Moves virtual time to `time` (never back) and wakes, in time order, every sleeper whose
    /// time has come.
    public func advance(to time: Double) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = max(state.now, time)
            let due = state.sleepers.filter { $0.value.until <= state.now }.sorted { $0.value.until < $1.value.until }
            for (id, _) in due { state.sleepers.removeValue(forKey: id) }
            return due.map(\.value)
        }
        for sleeper in due { sleeper.resume.resume() }
    }

    /// Moves virtual time on by `seconds`.
    public func advance(by seconds: Double) { advance(to: now + seconds) }

    /// Moves virtual wall-clock time to `unixTime`.
    public func advance(toUnixTime unixTime: Double) { advance(to: unixTime - startUnixTime) }

    /// Moves virtual time on in `step`s until `condition` holds (bounded like `eventually`).
    /// For a runtime whose next sleep may not be registered yet, or may be a short-lived one
    /// (a window's timer that is about to be cancelled): one `advance(by:)` could land before
    /// the sleep that matters and never wake it.
    public func advance(by step: Double, until condition: @Sendable () async -> Bool) async -> Bool {
        for _ in 0..<3000 {
            if await condition() { return true }
            advance(by: step)
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }
}
