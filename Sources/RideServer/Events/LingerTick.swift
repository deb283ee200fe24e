import NIOCore
import NIOPosix
import Synchronization

/// One clock for every all-rides stream's linger (`EventHub.Configuration.allEventsWriteLinger`).
///
/// A stream that got an event waits a little for more before writing, so at hundreds of events a
/// second it makes about ten socket writes a second. Each stream used to sleep on its own
/// (`Task.sleep`: a dispatch timer armed and fired per stream per batch, 150 of them for one
/// event on a server with 150 dispatchers); now they wait for the same tick: one event-loop
/// timer, armed by the first waiter and fired `interval` later for all who are waiting then.
/// A stream therefore lingers at most `interval` (less when it joins a tick already armed).
/// Cancellation does not cut a wait short: it ends within `interval` anyway.
final class LingerTick: Sendable {
    private struct State {
        var waiters: [CheckedContinuation<Void, Never>] = []
        var armed = false
        var ticks = 0
    }
    private let state = Mutex(State())
    private let loop: any EventLoop
    private let interval: TimeAmount

    /// The tick's own thread. On one of the shared loops every stream resumed by a tick would
    /// continue on that loop (NIO keeps a task where it was woken) and a task blocking it would
    /// hold every all-rides stream; woken from here, the streams spread over the loops again.
    private static let clock = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()

    init(interval: Duration, loop: any EventLoop = LingerTick.clock) {
        self.loop = loop
        self.interval = TimeAmount(interval)
    }

    /// Returns at the next tick.
    func wait() async {
        await withCheckedContinuation { continuation in
            let arm = state.withLock { state -> Bool in
                state.waiters.append(continuation)
                defer { state.armed = true }
                return !state.armed
            }
            // A loop that is shutting down never runs the task: fire at once rather than
            // leave the tick armed and every later waiter stuck.
            if arm { loop.scheduleTask(in: interval) { self.fire() }.futureResult.whenFailure { _ in self.fire() } }
        }
    }

    /// Ticks fired so far (tests: many waiters, one timer).
    var ticksFired: Int { state.withLock { $0.ticks } }
    /// Streams waiting for the next tick (tests).
    var waiting: Int { state.withLock { $0.waiters.count } }

    private func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.armed = false
            state.ticks += 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
