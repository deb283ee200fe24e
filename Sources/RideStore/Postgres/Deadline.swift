import Foundation
import NIOCore
import PostgresNIO
import Synchronization

/// Runs `body` but answers by `limit` at the latest: on time-out it throws `timedOut()` and
/// leaves `body` cancelled behind it. Unlike a task group this does not wait for `body` to
/// notice the cancellation, which a query on a black-holed connection may not do for minutes.
///
/// The timer runs on an event loop thread, not as a task: on a saturated cooperative pool a
/// sleeping task wakes only when a thread frees up, which stretched the 500 ms outage
/// deadline to 32 s under load (issue 14). `timedOut` is called on that event loop.
func withDeadline<T: Sendable>(
    _ limit: Duration,
    on timerLoop: any EventLoop = PostgresClient.defaultEventLoopGroup.any(),
    timedOut: @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = Race<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            let work = Task {
                do { race.settle(.success(try await body())) } catch { race.settle(.failure(error)) }
            }
            let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
            let timer = timerLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                race.settle(.failure(timedOut()))
            }
            // Whoever wins, neither the loser nor the timer keeps running.
            race.start(continuation) {
                work.cancel()
                timer.cancel()
            }
        }
    } onCancel: {
        race.settle(.failure(CancellationError()))
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

    /// Resumes outside the lock: the continuation's code and the cleanup run on their own.
    private func finishIfSettled() {
        let ready = state.withLock { state -> (CheckedContinuation<T, any Error>, Result<T, any Error>, @Sendable () -> Void)? in
            guard !state.finished, let result = state.result, let continuation = state.continuation,
                  let cleanup = state.cleanup else { return nil }
            state.finished = true
            return (continuation, result, cleanup)
        }
        guard let (continuation, result, cleanup) = ready else { return }
        continuation.resume(with: result)
        cleanup()
    }
}
