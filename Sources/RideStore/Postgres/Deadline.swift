import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Runs `body` but answers by `limit` at the latest: on time-out it throws `timedOut()` and
/// leaves `body` cancelled behind it. Unlike a task group this does not wait for `body` to
/// notice the cancellation, which a query on a black-holed connection may not do for minutes
/// (PostgresNIO does not cancel a query once sent), so `body` runs as a task of its own.
///
/// The deadline is an entry in `DeadlineWheel`, not a timer of its own: an event-loop timer per
/// operation cost two cross-thread wake-ups (schedule, then cancel) for each of the store's
/// thousands of operations a second (issue 39). The wheel runs on an event loop thread of its
/// own, not as a task: on a saturated cooperative pool a sleeping task wakes only when a thread
/// frees up, which stretched the 500 ms outage deadline to 32 s under load (issue 14), and the
/// server's own loops now run its tasks. `timedOut` is called on the wheel's loop.
func withDeadline<T: Sendable>(
    _ limit: Duration,
    wheel: DeadlineWheel = .shared,
    timedOut: @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = Race<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            let work = Task {
                do { race.settle(.success(try await body())) } catch { race.settle(.failure(error)) }
            }
            let deadline = wheel.add(after: limit) {
                race.settle(.failure(timedOut()))
            }
            // Whoever wins, neither the loser nor the deadline stays.
            race.start(continuation) {
                work.cancel()
                wheel.remove(deadline)
            }
        }
    } onCancel: {
        race.settle(.failure(CancellationError()))
    }
}

/// Every pending deadline of the process behind one event-loop timer that ticks every `tick`
/// while any deadline is pending and stops when none is. Adding and removing a deadline takes a
/// lock and nothing else; a deadline fires at most `tick` late (10 ms against the store's
/// 500 ms and 5 s limits). Only going from no deadline to one schedules the timer from outside
/// its loop (a wake-up); under load the wheel keeps ticking and each tick reschedules itself
/// from inside the loop.
final class DeadlineWheel: Sendable {
    /// On a thread of its own: `serve` runs its tasks on NIO's shared event loops (issue 39), and
    /// a deadline must fire even while a task blocks one of them (a stalled log write, say).
    static let shared = DeadlineWheel(loop: MultiThreadedEventLoopGroup(numberOfThreads: 1).next(), tick: .milliseconds(10))

    struct Entry: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private struct State {
        var pending: [UInt64: (due: NIODeadline, fire: @Sendable () -> Void)] = [:]
        var nextID: UInt64 = 0
        var ticking = false
    }

    private let state = Mutex(State())
    private let loop: any EventLoop
    private let tick: TimeAmount

    init(loop: any EventLoop, tick: Duration) {
        self.loop = loop
        self.tick = TimeAmount(tick)
    }

    /// Calls `fire` on the wheel's event loop once `limit` has passed, unless removed first.
    func add(after limit: Duration, _ fire: @escaping @Sendable () -> Void) -> Entry {
        let due = NIODeadline.now() + TimeAmount(limit)
        let (id, start) = state.withLock { state -> (UInt64, Bool) in
            state.nextID &+= 1
            state.pending[state.nextID] = (due, fire)
            let start = !state.ticking
            state.ticking = true
            return (state.nextID, start)
        }
        if start { scheduleTick() }
        return Entry(id: id)
    }

    /// Forgets a deadline; harmless after it fired.
    func remove(_ entry: Entry) {
        _ = state.withLock { $0.pending.removeValue(forKey: entry.id) }
    }

    /// Deadlines not yet fired nor removed (tests).
    var pendingCount: Int { state.withLock { $0.pending.count } }

    private func scheduleTick() {
        loop.scheduleTask(in: tick) { self.fireDue() }
    }

    private func fireDue() {
        let now = NIODeadline.now()
        let (due, more) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
            var due: [@Sendable () -> Void] = []
            for (id, entry) in state.pending where entry.due <= now {
                due.append(entry.fire)
                state.pending.removeValue(forKey: id)
            }
            state.ticking = !state.pending.isEmpty
            return (due, state.ticking)
        }
        // Outside the lock: a firing may add or remove deadlines.
        for fire in due { fire() }
        if more { scheduleTick() }
    }
}

/// Resumes a continuation with the first result settled; later ones are dropped.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var cleanup: (@Sendable () -> Void)?
        var finished = false
    }
    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>, cleanup: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.continuation = continuation
            state.cleanup = cleanup
        }
        finishIfSettled()
    }

    func settle(_ outcome: Result<T, any Error>) {
        state.withLock { state in
            if state.result == nil { state.result = outcome }
        }
        finishIfSettled()
    }

    /// Resumes outside the lock. The cleanup runs first, so when the caller resumes neither the
    /// loser nor the deadline is left (a test saw the wheel's entry still there just after).
    private func finishIfSettled() {
        let ready = state.withLock { state -> (CheckedContinuation<T, any Error>, Result<T, any Error>, @Sendable () -> Void)? in
            guard !state.finished, let result = state.result, let continuation = state.continuation,
                  let cleanup = state.cleanup else { return nil }
            state.finished = true
            return (continuation, result, cleanup)
        }
        guard let (continuation, result, cleanup) = ready else { return }
        cleanup()
        continuation.resume(with: result)
    }
}
